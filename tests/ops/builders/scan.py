"""Sample builders for the ops of ndgrad.ops.scan that need their own arguments or kink cases."""

BUILDERS = {}
