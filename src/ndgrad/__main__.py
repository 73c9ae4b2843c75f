"""``python -m ndgrad demo``: train an MLP and a CNN on handwritten digits; ``python -m ndgrad tour``: walk through the
seed tutorials' autograd examples, printing each step of the graph."""

import argparse
import sys


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m ndgrad")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="train on scikit-learn's digits and plot the loss curves")
    demo.add_argument("--model", choices=["mlp", "cnn", "both"], default="both")
    demo.add_argument("--epochs", type=int, default=20)
    demo.add_argument("--device", default="cpu", help="cpu, or cuda with CuPy and a GPU")
    demo.add_argument("--out", default="ndgrad-demo", help="folder for the loss-curve PNG")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--no-progress", action="store_true", help="no progress bars")
    commands.add_parser("tour", help="the seed tutorials' examples, step by step")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.command == "tour":
        from ndgrad.demo import tour

        tour.run()
        return 0
    from ndgrad.demo import digits

    models = digits.MODELS if args.model == "both" else (args.model,)
    digits.run(models, args.epochs, args.device, args.out, args.seed, progress=not args.no_progress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
