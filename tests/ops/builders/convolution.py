"""Sample builders for the ops of ndgrad.ops.convolution."""

BUILDERS = {}
