"""Demos run by ``python -m ndgrad``: ``digits`` trains networks end to end, ``tour`` walks the seed examples."""
