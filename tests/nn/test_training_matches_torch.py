"""End to end: an MLP, a small CNN and an LSTM classifier, built with ndgrad and with torch from the same code and
the same initial weights, trained for 20 steps on the same data with SGD (momentum) and Adam, follow torch's loss
curve to 1e-5 in float64 and end with the same parameters."""

import numpy as np
import pytest
import torch

import ndgrad

from .test_rnn import load_torch_weights

STEPS, BATCHES, CLASSES = 20, 4, 3


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, CLASSES))


def cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, CLASSES)
    )


def lstm_classifier(lib):
    class Classifier(lib.nn.Module):
        """Reads a sequence with a two-layer LSTM and classifies it from the last layer's final hidden state."""

        def __init__(self):
            super().__init__()
            self.lstm = lib.nn.LSTM(5, 8, num_layers=2, batch_first=True)
            self.head = lib.nn.Linear(8, CLASSES)

        def forward(self, x):
            _, (hidden, _) = self.lstm(x)
            return self.head(hidden[-1])

    return Classifier()


MODELS = {"mlp": (mlp, (6,)), "cnn": (cnn, (1, 8, 8)), "lstm": (lstm_classifier, (7, 5))}
OPTIMIZERS = {
    "sgd_momentum": lambda optim, params: optim.SGD(params, lr=0.1, momentum=0.9),
    "adam": lambda optim, params: optim.Adam(params, lr=0.01),
}


def train(lib, model, optimizer, inputs, targets):
    """STEPS steps, one of BATCHES minibatches each; the losses, and the parameters at the end."""
    criterion = lib.nn.CrossEntropyLoss()
    losses = []
    for step in range(STEPS):
        batch = slice(step % BATCHES * 8, step % BATCHES * 8 + 8)
        optimizer.zero_grad()
        loss = criterion(model(inputs[batch]), targets[batch])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, {name: param.detach().numpy() for name, param in model.named_parameters()}


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
@pytest.mark.parametrize("model", list(MODELS))
def test_training_follows_torch(model, optimizer):
    build, features = MODELS[model]
    torch.manual_seed(0)
    theirs, ours = build(torch).double(), build(ndgrad).double()
    load_torch_weights(ours, theirs)
    rng = np.random.default_rng(0)
    inputs = rng.standard_normal((BATCHES * 8, *features))
    targets = (inputs.reshape(len(inputs), -1) @ rng.standard_normal((np.prod(features), CLASSES))).argmax(1)
    losses_t, params_t = train(torch, theirs, OPTIMIZERS[optimizer](torch.optim, theirs.parameters()),
                               torch.tensor(inputs), torch.tensor(targets))
    losses_n, params_n = train(ndgrad, ours, OPTIMIZERS[optimizer](ndgrad.optim, ours.parameters()),
                               ndgrad.tensor(inputs), ndgrad.tensor(targets))
    np.testing.assert_allclose(losses_n, losses_t, rtol=1e-5)
    # the runs really learn (the last pass over the minibatches beats the first): the curves are not flat
    assert np.mean(losses_t[-BATCHES:]) < np.mean(losses_t[:BATCHES])
    for name, value in params_t.items():
        np.testing.assert_allclose(params_n[name], value, rtol=1e-5, atol=1e-8, err_msg=name)
