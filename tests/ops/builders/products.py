"""Sample builders for the ops of ndgrad.ops.products."""

BUILDERS = {}
