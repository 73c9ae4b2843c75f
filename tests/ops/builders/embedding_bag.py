"""Sample builders for ndgrad.ops.embedding_bag: each mode over 1-d input with offsets (an empty bag among them) and
over 2-d input, per_sample_weights, padding_idx and include_last_offset."""

from ndgrad.ops import embedding_bag

from ..samples import Call, Case, T, draw


def bag_call(indices, offsets=None, **kwargs):
    text = f"F.embedding_bag({indices}, $, {offsets}" + "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"

    def run(lib, weight, *per_sample_weights):
        extra = {"per_sample_weights": per_sample_weights[0]} if per_sample_weights else {}
        given = None if offsets is None else lib.tensor(offsets)
        return lib.nn.functional.embedding_bag(lib.tensor(indices), weight, given, **kwargs, **extra)

    return Call(text, run)


def embedding_bag_cases(op, rng):
    return [
        Case(op, (draw(rng, (4, 3)),), bag_call([1, 3, 0, 2], [0, 1, 1], mode="sum")),
        Case(op, (draw(rng, (5, 2)),), bag_call([4, 0, 1, 4, 2], [0, 3])),
        Case(op, (draw(rng, (5, 3), layout=T),), bag_call([[1, 2], [4, 0]], mode="max")),
        Case(op, (draw(rng, (4, 3)), draw(rng, (5,))), bag_call([1, 3, 0, 3, 2], [0, 2, 5], mode="sum",
                                                               include_last_offset=True)),
        Case(op, (draw(rng, (4, 2)), draw(rng, (2, 3))), bag_call([[0, 1, 1], [2, 3, 0]], mode="sum")),
        # padding_idx: torch's gradient skips rows the forward reads (not a derivative): checked against torch only
        Case(op, (draw(rng, (4, 3)),), bag_call([0, 2, 2, 3], [0, 2], padding_idx=2), smooth=False),
        # a row twice in one bag ties with itself: the maximum's gradient goes to it once
        Case(op, (draw(rng, (4, 3)),), bag_call([1, 1, 2, 3, 0], [0, 3], mode="max"), smooth=False),
    ]


BUILDERS = {embedding_bag.EmbeddingBag: embedding_bag_cases}
