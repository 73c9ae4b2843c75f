"""Sample builders for the ops of ndgrad.ops.layers."""

BUILDERS = {}
