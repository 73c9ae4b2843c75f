"""Sample builders for the ops of ndgrad.ops.normalization."""

BUILDERS = {}
