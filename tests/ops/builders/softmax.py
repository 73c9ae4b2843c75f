"""Sample builders for the ops of ndgrad.ops.softmax."""

BUILDERS = {}
