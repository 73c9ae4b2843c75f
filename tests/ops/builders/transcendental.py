"""Sample builders for the ops of ndgrad.ops.transcendental that need their own arguments or kink cases."""

BUILDERS = {}
