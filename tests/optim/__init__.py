"""Tests of ndgrad.optim against torch.optim."""
