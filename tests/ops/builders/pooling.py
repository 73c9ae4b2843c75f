"""Sample builders for the ops of ndgrad.ops.pooling."""

BUILDERS = {}
