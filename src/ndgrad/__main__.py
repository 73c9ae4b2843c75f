"""``python -m ndgrad demo``: walk through the seed tutorials' examples, printing each step of the graph."""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] != ["demo"]:
        print("usage: python -m ndgrad demo")
        return 2
    from ndgrad.demo import run

    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
