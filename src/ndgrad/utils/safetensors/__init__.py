"""ndgrad.utils.safetensors: tensors to and from .safetensors files, written in NumPy after the published format,
with the API of safetensors.torch (whose package ndgrad does not need)."""

from ndgrad.utils.safetensors._errors import SafetensorError
from ndgrad.utils.safetensors._model import load_model, save_model
from ndgrad.utils.safetensors._open import SafeSlice, load, load_file, safe_open
from ndgrad.utils.safetensors._save import save, save_file

__all__ = ["SafetensorError", "SafeSlice", "save", "save_file", "load", "load_file", "safe_open", "save_model",
           "load_model"]
