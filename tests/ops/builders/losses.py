"""Sample builders for the ops of ndgrad.ops.losses."""

BUILDERS = {}
