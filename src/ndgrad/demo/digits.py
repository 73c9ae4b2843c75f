"""The training demo: the seeds' last step (define a network, forward, loss, backward, update the weights) run for
real on scikit-learn's bundled 8x8 handwritten digits, with an MLP and a small CNN, written exactly as PyTorch code
is written. Needs the ``demo`` extra (scikit-learn, tqdm, matplotlib)."""

import time
from pathlib import Path

import ndgrad as torch
from ndgrad import nn
from ndgrad.utils.data import DataLoader, TensorDataset

MODELS = ("mlp", "cnn")


def digits_datasets(generator, test_fraction=0.2):
    """The 1,797 digits as (1, 8, 8) float images and int64 labels, split at random into train and test sets. Each
    pixel is standardised with the training set's statistics (the +0.1 keeps the always-blank border pixels finite)."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1)
    labels = torch.tensor(digits.target, dtype=torch.int64)
    order = torch.randperm(len(labels), generator=generator)
    test, train = order[: int(test_fraction * len(labels))], order[int(test_fraction * len(labels)):]
    mean, std = images[train].mean(dim=0), images[train].std(dim=0) + 0.1
    images = (images - mean) / std
    return TensorDataset(images[train], labels[train]), TensorDataset(images[test], labels[test])


def make_model(name):
    if name == "mlp":
        return nn.Sequential(
            nn.Flatten(),
            nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(128, 10),
        )
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 32 x 4 x 4
        nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 64 x 2 x 2
        nn.Flatten(), nn.Dropout(0.2),
        nn.Linear(256, 10),
    )


def accuracy(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            predicted = model(images.to(device)).argmax(dim=1)
            correct += (predicted == labels.to(device)).sum().item()
            total += labels.numel()
    model.train()
    return correct / total


def train(name, epochs, device, train_set, test_set, generator, progress=True, graph_path=None):
    """Train one model; returns its per-step training losses and per-epoch test accuracies. With ``graph_path``,
    also draws the graph of one training batch's loss there, one box per layer."""
    from tqdm import tqdm

    model = make_model(name).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    loss_fn = nn.CrossEntropyLoss()
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True, generator=generator)
    test_loader = DataLoader(test_set, batch_size=256)
    losses, accuracies = [], []
    for epoch in range(1, epochs + 1):
        bar = tqdm(train_loader, desc=f"{name} epoch {epoch:2d}/{epochs}", leave=False, disable=not progress)
        for images, labels in bar:
            optimizer.zero_grad()
            loss = loss_fn(model(images.to(device)), labels.to(device))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{losses[-1]:.4f}")
        schedule.step()
        epoch_loss = sum(losses[-len(train_loader):]) / len(train_loader)
        accuracies.append(accuracy(model, test_loader, device))
        print(f"{name} epoch {epoch:2d}/{epochs}  train loss {epoch_loss:.4f}  test accuracy {accuracies[-1]:.2%}")
    if graph_path is not None:
        images, labels = next(iter(train_loader))
        draw_graph(model, loss_fn, images.to(device), labels.to(device), graph_path)
    return losses, accuracies


def draw_graph(model, loss_fn, images, labels, path):
    """Draw the graph behind one batch's loss as an SVG, each layer's ops collapsed into one box (ndgrad.viz)."""
    from ndgrad.viz import draw, record_modules

    with record_modules(model):
        loss = loss_fn(model(images), labels)
    path.parent.mkdir(parents=True, exist_ok=True)
    draw(loss, params=dict(model.named_parameters()), collapse_modules=True, path=path)


def plot(histories, path):
    """Loss per training step for each model, with its final test accuracy in the legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    for name, (losses, accuracies) in histories.items():
        axes.plot(losses, label=f"{name} (test accuracy {accuracies[-1]:.1%})", linewidth=1)
    axes.set_xlabel("training step (batch of 32)")
    axes.set_ylabel("cross-entropy loss")
    axes.set_yscale("log")
    axes.set_title("ndgrad on scikit-learn's digits")
    axes.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def run(models=MODELS, epochs=20, device="cpu", out="ndgrad-demo", seed=0, progress=True):
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    train_set, test_set = digits_datasets(generator)
    print(f"digits: {len(train_set)} training and {len(test_set)} test images of 8x8 pixels, 10 classes")
    histories = {}
    for name in models:
        start = time.perf_counter()
        graph_path = Path(out) / f"{name}_graph.svg"
        histories[name] = train(name, epochs, device, train_set, test_set, generator, progress, graph_path)
        print(f"{name}: {time.perf_counter() - start:.1f} s, final test accuracy {histories[name][1][-1]:.2%}")
        print(f"{name}: graph of one training batch written to {graph_path.resolve()}")
    path = Path(out) / "loss_curves.png"
    plot(histories, path)
    print(f"loss curves written to {path.resolve()}")
    return histories
