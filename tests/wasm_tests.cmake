# Wasm front-end tests (being written).
