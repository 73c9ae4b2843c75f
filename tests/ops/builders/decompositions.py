"""Sample builders for the ops of ndgrad.ops.decompositions."""

BUILDERS = {}
