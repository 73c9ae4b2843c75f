"""Sample builders for the ops of ndgrad.ops.indexing that need their own arguments or kink cases."""

BUILDERS = {}
