"""Sample builders for ndgrad.ops.ctc: padded and concatenated targets, repeated labels (which need a blank between
them), empty targets, inputs shorter than the batch's longest, another blank; the reductions, unbatched input and
infinite losses are in test_errors_ctc.py. Log-probabilities come from a log_softmax, as ctc_loss's gradient
assumes (see ops/ctc.py); one case checks it on raw inputs too."""

from ndgrad.ops.ctc import CtcLoss

from ..samples import Call, Case, draw, fixed


def ctc(input_lengths, target_lengths, normalise=True, **kwargs):
    text = f"F.ctc_loss({'x.log_softmax(2)' if normalise else 'x'}, y, {input_lengths}, {target_lengths}" + \
        "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ", reduction='none')"

    def call(lib, x, targets):
        log_probs = x.log_softmax(2) if normalise else x
        return lib.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="none", **kwargs)

    return Call(text, call)


def ctc_cases(op, rng):
    return [
        Case(op, (draw(rng, (4, 2, 3)), fixed([[1, 2], [2, 0]])), ctc([4, 3], [2, 1])),
        Case(op, (draw(rng, (6, 3, 5)), fixed([[1, 1, 3], [4, 2, 0], [0, 0, 0]])), ctc([6, 5, 4], [3, 2, 0])),
        Case(op, (draw(rng, (6, 3, 5)), fixed([3, 3, 1, 2, 4, 2])), ctc([6, 6, 3], [2, 3, 1])),
        Case(op, (draw(rng, (5, 2, 4)), fixed([[0, 1, 1], [2, 0, 2]])), ctc([5, 5], [3, 3], blank=3)),
        Case(op, (draw(rng, (5, 2, 4)), fixed([[1, 2, 1], [3, 2, 0]])), ctc([5, 4], [3, 2], normalise=False),
             smooth=False),
    ]


BUILDERS = {CtcLoss: ctc_cases}
