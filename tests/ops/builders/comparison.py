"""Sample builders for the ops of ndgrad.ops.comparison that need their own arguments or kink cases."""

BUILDERS = {}
