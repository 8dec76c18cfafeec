# scannerd — build, test and run on Debian 12.
#
#   make run     install what is missing, build, and run on the bundled demo clip (DEVICE=/dev/video0 for a camera)
#   make test    install what is missing and run every test
#   make bench   per-stage recognition costs → docs/benchmarks.md
#
# Every target that builds depends on `deps`, which installs only the Debian packages that are missing.

SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= debug
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Build + runtime: the C libraries behind Sources/C*, their pkg-config files, and Tesseract's English model.
APT_PACKAGES := pkg-config libzbar-dev libtesseract-dev libleptonica-dev tesseract-ocr-eng \
	libturbojpeg0-dev libv4l-dev libphonenumber-dev libzxing-dev

.PHONY: deps build run test bench clean fixtures

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG)

RUN_FLAGS ?= --events-stdout --socket $(CURDIR)/.build/scannerd.sock
run: build
ifdef DEVICE
	$(SWIFT) run -c $(CONFIG) scannerd run --device $(DEVICE) $(RUN_FLAGS)
else
	@echo "# the demo clip, looping (Ctrl-C to stop); in another terminal: .build/debug/scanctl watch --socket .build/scannerd.sock"
	$(SWIFT) run -c $(CONFIG) scannerd run --source demo --loop $(RUN_FLAGS)
endif

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Builds every release product (scannerd, scannerd-bench, libFakeCamera.so): the capture figures run
# the daemon on the emulated camera.
bench: deps
	$(SWIFT) build -c release
	.build/release/scannerd-bench --output docs/benchmarks.md

# Regenerates the committed fixtures (needs: pip install pillow segno treepoem numpy; apt ghostscript).
fixtures:
	python3 Tests/Fixtures/generate.py

clean:
	rm -rf .build
