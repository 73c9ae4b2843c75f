"""Sample builders for the ops of ndgrad.ops.joining that need their own arguments or kink cases."""

BUILDERS = {}
