"""Print how many of torch's user-facing names ndgrad has, per namespace; ``--missing`` lists the others."""

import sys

from tests.surface.names import coverage


def main(argv):
    show_missing = "--missing" in argv
    total = have = 0
    print(f"{'namespace':28} {'torch':>6} {'ndgrad':>7} {'share':>6}")
    for namespace, names, missing in coverage():
        count, present = len(names), len(names) - len(missing)
        total, have = total + count, have + present
        print(f"{namespace:28} {count:6} {present:7} {present / count:6.0%}")
        if show_missing and missing:
            print("    missing:", " ".join(missing))
    print(f"{'all':28} {total:6} {have:7} {have / total:6.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
