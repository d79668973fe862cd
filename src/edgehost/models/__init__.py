"""Where model files come from: the catalog fitted to this board (catalog.py), downloads from the
Hugging Face Hub (downloads.py) and the model files on this machine (files.py). Loading and running a
model is llm/'s; the Host's model commands (host/model_library.py) use both."""
