# scannerd — build, test and run on Debian 12.
#
#   make run     install what is missing, build, and run on the bundled demo clip (DEVICE=/dev/video0 for a camera)
#   make watch   the events of the daemon `make run` started, as scanctl shows them
#   make test    install what is missing and run every test (format lint with .swift-format, unit, system, check-units)
#   make test-package  build the Debian package and install, run, remove and purge it in a throwaway
#                root (Tests/system/check-deb.sh); a second, static release build, so not in make test
#   make bench   per-stage costs: recognition, capture, sequence, delivery, memory per call, and text lines on
#                realistic footage when `make footage` has made clips → docs/benchmarks.md; BLACKBOX=DIR
#                (zxing-cpp's test/samples, from a checkout of it) adds the decode rate on its samples
#   make soak    10 minutes on the emulated camera with unplugs: RSS / descriptors flat? → docs/benchmarks.md
#   make flood   the floods of issue #39 (photos never read, idle HTTP connections, stalled streams)
#   make many-codes  `scan` on sheets of 49 to 4,356 QR codes: time per code (issue #54)
#   make score-real  `scannerd scan` on real receipt photos beside PP-OCRv6 alone (issue #40; REAL_DEV_MIRROR=)
#   make score-real-live  the same receipts held up to the camera, read live at realtime, beside `scan` (issue #52)
#   make score-documents  the receipts' documents straightened by `scan --document`, read by a reference OCR
#                beside the photos in the same run (issue #53)
#   make footage realistic webcam clips with exact truth (Tests/Fixtures/footage) → .build/footage;
#                make score-footage runs the daemon on each and scores it against the truth
#                make score-scan scores `scannerd scan` on their middle legible frames
#   make deps    the Debian packages building and running need that are missing, OpenVINO's C runtime and the
#                text networks from PyPI (pinned; .build/openvino, .build/models), zxing-cpp built from its PyPI
#                source (.build/zxing), zbar's headers from Debian's libzbar-dev (.build/zbar); every target
#                that builds runs it. `make test` also installs the test
#                tools (test-deps: a browser, a broker, systemd's checkers), `make deb` the packaging tools
#   make install    release build, then binaries, systemd units, udev rule, sysusers file, docs, config
#                   (PREFIX=/usr/local, DESTDIR=); make uninstall removes them again
#   make deb        scannerd_VERSION_ARCH.deb: static Swift runtime, man pages, computed Depends (docs/kiosk.md)
#
# Every target that builds depends on `deps`, which installs only the Debian packages that are missing.

SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= debug
BIN = $$($(SWIFT) build -c $(CONFIG) --show-bin-path)
# `make run` builds the daemon alone in a directory of its own, without an index store and without debug
# info: a clean build compiles ~940 Swift files (SwiftNIO, Hummingbird, …), 146 s → 101 s on 2 cores
# (issue #42, docs/benchmarks.md); and as a release build without optimization: each module compiled
# whole at once (release's whole-module mode) repeats less than the debug build's batches, 112 → 98 s;
# and each module's interface written by the job that compiles it, not by a second job that type-checks
# the module again so that its dependents may start sooner: on 2 cores there is no idle core to gain, and
# the daemon's build takes 149 → 128 CPU-seconds; and without the check of the compiler's own LLVM output
# (a check for bugs of the compiler, ~4 % of the build; docs/benchmarks.md, "A fresh machine, simulated").
# What differs between two levels of make (its own variables, the shell's SHLVL and `_`) is taken out of
# SwiftPM's environment: SwiftPM keys its cache of evaluated manifests by the whole environment, and evaluates
# every package's manifest again (~6 s) when that differs from the last run's; `run` runs it from two levels.
# Not for the other builds: SwiftPM discovers tests through the index store, and a build with other flags
# in the same directory compiles everything again.
RUN_SCRATCH := .build/run
RUN_SWIFT = env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SHLVL -u _ $(SWIFT)
RUN_BUILD = $(RUN_SWIFT) build -c release -Xswiftc -Onone --scratch-path $(RUN_SCRATCH) --disable-index-store -Xswiftc -gnone \
	-Xswiftc -no-emit-module-separately-wmo -Xswiftc -Xfrontend -Xswiftc -disable-llvm-verify
RUN_BIN = $$($(RUN_BUILD) --show-bin-path)
# `make test`'s debug build with the tests, in .build: each module compiled whole by one job (`-wmo`)
# that still writes one object per file (`-num-threads 2`, which SwiftPM's link and test discovery
# need), with the index store test discovery reads, no debug info, its interface written by the same
# job and no check of the compiler's LLVM output: 451 s → 285 s on 2 cores (docs/benchmarks.md, "`make
# test` on 2 cores without AVX-512"). A build by hand with other flags (`swift build --build-tests`)
# compiles everything again; `make test-build` is this one.
TEST_BUILD = $(SWIFT) build --build-tests -debug-info-format none -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc 2 \
	-Xswiftc -no-emit-module-separately-wmo -Xswiftc -Xfrontend -Xswiftc -disable-llvm-verify
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Three sets of Debian packages, each installed (when missing) only by the targets that need it (issue #42:
# `make run` on a fresh machine installed a browser, lintian and a broker it never used).
#
# Building and running (`deps`, so every target that builds): the C libraries behind Sources/C*, their
# pkg-config files, and Tesseract's English model. (V4L2 is the kernel's header alone, from linux-libc-dev;
# zbar's headers come from Debian's libzbar-dev unpacked, not installed: `zbar-header`.)
RUN_PACKAGES := pkg-config libzbar0 libtesseract-dev libleptonica-dev tesseract-ocr-eng \
	libturbojpeg0-dev libphonenumber-dev libtiff-dev libmosquitto-dev libssl-dev
# zxing-cpp's release source (`zxing`, below) is built with CMake and GCC (C++20), fetched with curl.
RUN_PACKAGES += cmake g++ curl
# pip and unzip for what comes from PyPI (OpenVINO's runtime, the text networks: `runtime`, `models`),
# installed first and apart, so that the downloads from PyPI need not wait for the rest.
PYPI_PACKAGES := python3-venv unzip
# Testing (`test-deps`): Tests/system/check-units.sh's systemd-analyze (verify, security) and udevadm (test);
# the HTTP tests' clients (Tests/HTTPServerTests, Tests/ScannerCLITests/HTTPRunTests.swift): curl (above)
# and a real browser for the preview page (headless Chromium); the MQTT tests' broker and clients
# (Tests/ScannerCLITests/MQTTTests.swift), started and stopped by the tests.
TEST_PACKAGES := systemd udev chromium mosquitto mosquitto-clients
# The Debian package (`package-deps`): make deb (dpkg-shlibdeps computes Depends) and its test,
# Tests/system/check-deb.sh (lintian, readelf).
PACKAGE_PACKAGES := dpkg-dev lintian binutils

.PHONY: format deps build run watch test test-build test-package bench soak flood many-codes clean fixtures install uninstall footage footage-venv score-footage screenshot deb score-scan score-real score-real-live score-documents score-venv apt-deps pypi-tools test-deps package-deps runtime models zxing zxing-headers zbar-header run-resolve run-compile

deps: apt-deps runtime models zxing zbar-header

# The packages of $(1) that are not installed, installed (one apt-get for all of them).
install-missing = @missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make $@: installing$$missing"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

apt-deps: pypi-tools
	$(call install-missing,$(RUN_PACKAGES))

pypi-tools:
	$(call install-missing,$(PYPI_PACKAGES))

test-deps:
	$(call install-missing,$(TEST_PACKAGES))

package-deps:
	$(call install-missing,$(PACKAGE_PACKAGES))

# What comes from PyPI (issue #40), each pinned by version and SHA-256 and never committed: OpenVINO's C
# runtime (config/runtime/fetch-openvino.sh → .build/openvino) and PaddleOCR's PP-OCRv6 small text
# detector and recognizer from the rapidocr wheel (config/models/build-models.py → .build/models).
# A product finds both beside its own directory (../lib/scannerd, ../share/scannerd/models), as an
# installed one does under PREFIX: `link-beside` makes those two links in a build directory.
PYPI_VENV := .build/pypi-venv
OPENVINO_DIR := .build/openvino
MODELS_DIR ?= .build/models
TRIPLE := $(shell uname -m)-unknown-linux-gnu
link-beside = mkdir -p $(1)/$(TRIPLE)/lib $(1)/$(TRIPLE)/share/scannerd && \
	ln -sfn $(CURDIR)/$(OPENVINO_DIR)/lib $(1)/$(TRIPLE)/lib/scannerd && \
	ln -sfn $(CURDIR)/$(MODELS_DIR) $(1)/$(TRIPLE)/share/scannerd/models

$(PYPI_VENV)/bin/pip: | pypi-tools
	python3 -m venv $(PYPI_VENV)

runtime: pypi-tools $(PYPI_VENV)/bin/pip
	@bash config/runtime/fetch-openvino.sh $(OPENVINO_DIR) $(PYPI_VENV)/bin/pip
	@$(call link-beside,.build)

# zxing-cpp 3.x (issue #41) from its PyPI sdist, pinned by version and SHA-256, built static into
# .build/zxing (config/runtime/build-zxing.sh); Debian 12's libzxing is 1.4.
# Its headers apart (`zxing-headers`), so that what includes them compiles while the library is built.
ZXING_DIR := .build/zxing
zxing-headers: apt-deps
	@bash config/runtime/build-zxing.sh headers $(ZXING_DIR)
zxing: zxing-headers
	@bash config/runtime/build-zxing.sh library $(ZXING_DIR)

# zbar's headers from Debian's libzbar-dev, unpacked into .build/zbar (config/runtime/fetch-zbar-header.sh):
# installed, it would bring 71 packages of ImageMagick and GTK development files with it.
ZBAR_DIR := .build/zbar
zbar-header: apt-deps
	@SUDO=$(SUDO) bash config/runtime/fetch-zbar-header.sh $(ZBAR_DIR)

models: $(MODELS_DIR)/alphabet.json
# After `runtime` (order only): not two pips in one environment at once under `make -j` (`make run`).
$(MODELS_DIR)/alphabet.json: config/models/build-models.py | $(PYPI_VENV)/bin/pip runtime
	@$(PYPI_VENV)/bin/python -c "import onnx" 2>/dev/null || $(PYPI_VENV)/bin/pip install -q onnx==1.23.2
	@[ -f $(PYPI_VENV)/rapidocr-3.10.0-py3-none-any.whl ] || $(PYPI_VENV)/bin/pip download -q --no-deps rapidocr==3.10.0 -d $(PYPI_VENV)
	$(PYPI_VENV)/bin/python config/models/build-models.py $(MODELS_DIR) --wheel $(PYPI_VENV)/rapidocr-3.10.0-py3-none-any.whl

build: deps
	$(SWIFT) build -c $(CONFIG)

# The repository's configuration (every key at its default), not an installed /etc/scannerd/scannerd.conf.
# HTTP on loopback: events at /events, items at /items, the newest frame at /snapshot.jpg (docs/http.md).
HTTP ?= 127.0.0.1:8390
# The text networks compiled once and kept (InferenceRuntime's NetworkCache, docs/recognition.md), for the
# daemon `make run` starts, where systemd's CacheDirectory= would put them (the tests' daemons share it:
# Tests/system/swift-test.sh).
NETWORK_CACHE := $(CURDIR)/.build/cache
RUN_FLAGS ?= --config config/scannerd.conf --events-stdout --socket $(CURDIR)/.build/scannerd.sock --http $(HTTP)
# Only the daemon is built (`make watch` builds the client when asked), in $(RUN_SCRATCH), and run from there.
# On a fresh machine the build goes beside `deps` (docs/benchmarks.md, sessions 33 and 34): SwiftPM resolves
# the packages from the first second (`run-resolve`) while apt installs and the downloads from PyPI run;
# everything the daemon compiles is compiled (`run-compile`) once the headers it includes are there, while
# zxing-cpp's library is still being built; the link, last, needs that library.
# Once the daemon has been built, the two would only make SwiftPM plan each build again: then `deps` alone,
# and the one build.
run:
	@if [ -x $(RUN_SCRATCH)/release/scannerd ]; then $(MAKE) --no-print-directory deps; \
	else $(MAKE) --no-print-directory -j3 deps run-compile; fi
	$(RUN_BUILD) --product scannerd
	@$(call link-beside,$(RUN_SCRATCH))
ifdef DEVICE
	CACHE_DIRECTORY=$(NETWORK_CACHE) "$(RUN_BIN)/scannerd" run --device $(DEVICE) $(RUN_FLAGS)
else
	@echo "# the demo clip, looping (Ctrl-C to stop); in another terminal: make watch"
	@echo "# the preview page: http://$(HTTP)/ ; events: curl -N http://$(HTTP)/events (docs/http.md)"
	CACHE_DIRECTORY=$(NETWORK_CACHE) "$(RUN_BIN)/scannerd" run --source demo --loop $(RUN_FLAGS)
endif

# SwiftPM's resolution (versions computed, some thirty manifests evaluated one by one) needs nothing from `deps`.
run-resolve:
	@$(RUN_SWIFT) package --scratch-path $(RUN_SCRATCH) resolve

# Every module of the daemon compiled, not linked: the C headers of `deps` are needed, zxing-cpp's library not yet.
run-compile: run-resolve apt-deps runtime zbar-header zxing-headers
	@$(RUN_BUILD) --target scannerd

# The events of the daemon `make run` started, as scanctl shows them.
watch:
	$(RUN_BUILD) --product scanctl
	"$(RUN_BIN)/scanctl" watch --socket $(CURDIR)/.build/scannerd.sock

# The code's layout (.swift-format, the toolchain's swift-format; issue #42): `make format` rewrites it,
# `make test` fails on what does not follow it.
format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

# The Debian package's build and check (issue #18) are `make test-package`, not part of `make test`:
# the package needs a second, static release build (the Swift runtime linked in), which cannot share the
# test build's modules (a static build compiles against the toolchain's swift_static, which has no Swift
# Testing). On the 2-core machines of 2026-11-23 the two builds and the tests took 22 minutes, past the
# 15 minutes make test has (docs/benchmarks.md).
test: deps test-deps footage-venv
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift
	$(TEST_BUILD)
	bash Tests/system/swift-test.sh $(SWIFT)
	bash Tests/system/check-units.sh "$(BIN)/scannerd"
	$(SWIFT) package dump-package | python3 Tests/system/check-architecture.py docs/architecture.md

# The build `make test` runs, alone (after a change, before `bash Tests/system/swift-test.sh swift --filter …`).
test-build: deps
	$(TEST_BUILD)

test-package: deps package-deps
	$(MAKE) --no-print-directory deb DEB_OUTPUT=$(DEB_BUILD)
	bash Tests/system/check-deb.sh "$(DEB_BUILD)/scannerd_$$($(DEB_BUILD)/release/scannerd --version)_$$(dpkg --print-architecture).deb"

# docs/preview.png: the preview page in headless Chromium (docs/preview-screenshot.sh).
screenshot: build test-deps
	bash docs/preview-screenshot.sh

# Builds every release product (scannerd, scannerd-bench, libFakeCamera.so): the capture figures run
# the daemon on the emulated camera.
bench: deps
	$(SWIFT) build -c release
	.build/release/scannerd-bench --output docs/benchmarks.md $(if $(BLACKBOX),--blackbox $(BLACKBOX))

# Ten minutes on the emulated camera with an unplug every ~30 s: RSS, descriptors and threads must stay
# flat (Tests/soak/soak.sh; SOAK_SECONDS=… to shorten). The result replaces the soak section of docs/benchmarks.md.
soak: deps
	$(SWIFT) build -c release --product scannerd
	$(SWIFT) build -c release --product FakeCamera
	SOAK_OUTPUT=docs/benchmarks.md bash Tests/soak/soak.sh

# The floods of issue #39 (Tests/soak/flood.sh): clients that ask for photos and never read, 2000 idle
# HTTP connections under 1024 open files, 63 event streams that never read; FLOOD_BINARIES=… to
# compare binaries in one run (e.g. a build of the previous main). Prints a table for docs/benchmarks.md.
FLOOD_BINARIES ?= .build/release/scannerd
flood: deps test-deps footage-venv
	$(SWIFT) build -c release --product scannerd
	$(SWIFT) build -c release --product FakeCamera
	bash Tests/soak/flood.sh $(FLOOD_BINARIES)

# Many codes in one image (issue #54, Tests/bench/many_codes.py): `scan` on generated mosaics of 49 to
# 2,401 QR codes and a page of 4,356 small ones, whole-process time and memory; CODES_BINARIES=… to
# compare binaries in one run. Prints a table for docs/benchmarks.md ("Many codes in one image").
CODES_BINARIES ?= .build/release/scannerd
many-codes: deps footage-venv
	$(SWIFT) build -c release --product scannerd
	.build/footage-venv/bin/python Tests/bench/many_codes.py $(CODES_BINARIES) --small

# Regenerates the committed fixtures (needs: pip install pillow segno treepoem numpy; apt ghostscript).
fixtures:
	python3 Tests/Fixtures/generate.py

# Realistic footage (issue #13): numpy, pillow and segno from PyPI in a venv of the build's own,
# Debian's DejaVu fonts. SEEDS=1,2,3 SIZE=1280x720 SCENARIOS=card,phone,… choose the clips.
FOOTAGE_VENV := .build/footage-venv
FOOTAGE_DIR ?= .build/footage
SEEDS ?= 1,2,3
SIZE ?= 1280x720
SCENARIOS ?= card,phone,label,receipt,poster,sheet,desk
# The generator's Python and fonts, and the tests' clients in Tests/Fixtures/clients (WebSocket:
# python-websockets; Prometheus text: prometheus-client's parser); `make test` needs them too.
footage-venv:
	@missing=""; for p in python3-venv fonts-dejavu-core; do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; fi
	@[ -x $(FOOTAGE_VENV)/bin/python ] || python3 -m venv $(FOOTAGE_VENV)
	@$(FOOTAGE_VENV)/bin/python -c "import numpy, PIL, segno, ppf.datamatrix, websockets, prometheus_client" 2>/dev/null || $(FOOTAGE_VENV)/bin/pip install -q numpy pillow segno ppf-datamatrix==0.2 websockets prometheus-client

footage: footage-venv
	$(FOOTAGE_VENV)/bin/python Tests/Fixtures/footage/generate.py $(FOOTAGE_DIR) --seeds $(SEEDS) --size $(SIZE) --scenarios $(SCENARIOS)

# Each clip through `scannerd run --pace none` (deterministic), scored against its truth.
score-footage: build
	@bin="$(BIN)"; for truth in $(FOOTAGE_DIR)/*.json; do \
		clip="$${truth%.json}.mjpeg"; \
		"$$bin/scannerd" run --no-config --no-socket --source "$$clip" --pace none --events-stdout > "$${truth%.json}.events" 2>/dev/null; \
		python3 Tests/Fixtures/footage/score.py "$$truth" "$${truth%.json}.events"; \
	done

# `scannerd scan` on the middle legible frame of each typed item of each clip (Tests/Fixtures/footage/
# score_scan.py; SCAN_FRAMES=qhq for the frames a quarter, half and three quarters in). Uses the line
# models (.build/models).
SCAN_FRAMES ?= mid
score-scan: build
	@bin="$(BIN)"; \
	python3 Tests/Fixtures/footage/score_scan.py "$$bin/scannerd" $(FOOTAGE_DIR)/frames $(SCAN_FRAMES) $(FOOTAGE_DIR) -- \


# Real photos (issue #40): `scannerd scan` on the development receipts (../shared/real-dev, WildReceipt)
# beside PP-OCRv6 alone (RapidOCR from PyPI, onnxruntime, one thread), in the same run: recall of phone
# numbers, URLs and e-mail addresses, false items per image, time per image (Tests/real/score_real.py).
# REAL_DEV: the set's JSON; REAL_DEV_MIRROR: the git directory of a mirror of tmnestor/lmm-comparison-notebook, where the images
# are (../shared/real-dev/README.md); they are cached in .build/real-dev, never committed.
# REAL_LIMIT=N scores the first N images; REAL_SHOW=1 lists every miss and false item.
# REAL_DEV_MIRROR has no default: where a mirror lies is the machine's business (the search tool's
# `fetch github:tmnestor/lmm-comparison-notebook` prints its path).
REAL_DEV ?= $(abspath $(CURDIR)/../shared/real-dev/wildreceipt-dev.json)
REAL_DEV_MIRROR ?=
REAL_LIMIT ?= 0
SCORE_VENV := .build/score-venv
score-venv:
	@[ -n "$(REAL_DEV_MIRROR)" ] || { echo "make $(MAKECMDGOALS): set REAL_DEV_MIRROR to the git directory of a mirror of tmnestor/lmm-comparison-notebook (../shared/real-dev/README.md)"; exit 2; }
	@[ -x $(SCORE_VENV)/bin/python ] || python3 -m venv $(SCORE_VENV)
	@$(SCORE_VENV)/bin/python -c "import rapidocr, onnxruntime, phonenumbers, segno" 2>/dev/null || \
		$(SCORE_VENV)/bin/pip install -q rapidocr==3.10.0 onnxruntime==1.32.0 phonenumbers==9.0.43 segno==1.6.6

score-real: deps score-venv
	$(SWIFT) build -c release --product scannerd
	$(SCORE_VENV)/bin/python Tests/real/score_real.py .build/release/scannerd $(REAL_DEV_MIRROR) .build/real-dev \
		--dev $(REAL_DEV) --limit $(REAL_LIMIT) $(if $(REAL_SHOW),--show)

# The development receipts held up to the camera (issue #52, Tests/real/score_real_live.py): a clip made of
# every REAL_LIVE_EVERY-th receipt that has an item (.build/real-dev/live), each through `scannerd run --pace
# realtime`, beside `scannerd scan` on the same photos in the same run. REAL_LIMIT=N: the first N clips.
# REAL_LIVE_ARGS="--pace none --jobs 2": every frame read, the same events on every run (to compare two
# builds; realtime runs of one build differ by several items).
REAL_LIVE_EVERY ?= 3
REAL_LIVE_ARGS ?=
score-real-live: deps score-venv
	$(SWIFT) build -c release --product scannerd
	$(SCORE_VENV)/bin/python Tests/real/score_real_live.py .build/release/scannerd $(REAL_DEV_MIRROR) .build/real-dev \
		--dev $(REAL_DEV) --every $(REAL_LIVE_EVERY) --limit $(REAL_LIMIT) $(if $(REAL_SHOW),--show) $(REAL_LIVE_ARGS)

# The development receipts' documents (issue #53, Tests/real/score_documents.py): `scan --document` on each
# photo, and PP-OCRv6 alone (RapidOCR) reading the photo and the straightened document in the same run.
score-documents: deps score-venv
	$(SWIFT) build -c release --product scannerd
	$(SCORE_VENV)/bin/python Tests/real/score_documents.py .build/release/scannerd $(REAL_DEV_MIRROR) .build/real-dev \
		--dev $(REAL_DEV) --limit $(REAL_LIMIT) $(if $(REAL_SHOW),--show)

# The Debian package (issue #18): release binaries with the Swift runtime linked in (no toolchain on
# the kiosk), built in a directory of their own so the dynamic build stays as it is.
# `make test-package` builds it into .build-deb and installs it in a throwaway root (Tests/system/check-deb.sh).
DEB_BUILD ?= .build-deb
DEB_OUTPUT ?= .
deb: deps package-deps
	@$(call link-beside,$(DEB_BUILD))
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(DEB_BUILD) --product scannerd
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(DEB_BUILD) --product scanctl
	$(SWIFT) build -c release --scratch-path $(DEB_BUILD) --product generate-manual
	bash config/debian/build-deb.sh $(DEB_BUILD)/release $(DEB_OUTPUT)

clean:
	rm -rf .build

# Installation. Units, the udev rule and the sysusers file go where systemd 252 (Debian 12) looks for them:
# units and sysusers.d under $(PREFIX)/lib for PREFIX=/usr and /usr/local (both are in
# `systemd-analyze unit-paths`), which leaves /etc/systemd/system to the operator's drop-ins and overrides.
# udev 252 reads no /usr/local/lib/udev/rules.d, so the rule goes to /etc/udev/rules.d unless PREFIX=/usr.
# Any other PREFIX (/opt/…) puts all three under /etc.
# BUILD_DIR=DIR installs the scannerd and scanctl already in DIR and builds nothing (Tests/system/check-units.sh).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
DOCDIR ?= $(PREFIX)/share/doc/scannerd
# The runtime's libraries and the models go where the binary looks for them: ../lib/scannerd and
# ../share/scannerd/models from BINDIR (Sources/COpenVINO's rpath, ScannerCore's LineModelChoice).
RUNTIME_INSTALL_DIR ?= $(PREFIX)/lib/scannerd
MODELS_INSTALL_DIR ?= $(PREFIX)/share/scannerd/models
UNITDIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),$(PREFIX)/lib/systemd/system,/etc/systemd/system)
SYSUSERSDIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),$(PREFIX)/lib/sysusers.d,/etc/sysusers.d)
UDEVRULESDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/udev/rules.d,/etc/udev/rules.d)
BUILD_DIR ?=
# Installed with the same relative layout as in the repository, so that README.md's links work.
DOCS := README.md $(wildcard docs/*.md) $(wildcard docs/*.png) systemd/README.md systemd/http.conf systemd/mqtt.conf
CONF := $(DESTDIR)$(SYSCONFDIR)/scannerd/scannerd.conf
SUBST := sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@sysconfdir@|$(SYSCONFDIR)|g' -e 's|@docdir@|$(DOCDIR)|g'

install: $(if $(BUILD_DIR),,deps)
ifeq ($(BUILD_DIR),)
	$(SWIFT) build -c release --product scannerd
	$(SWIFT) build -c release --product scanctl
endif
	@set -e; bin="$(BUILD_DIR)"; [ -n "$$bin" ] || bin="$$($(SWIFT) build -c release --show-bin-path)"; \
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/systemd $(DESTDIR)$(SYSCONFDIR)/scannerd; \
	install -m 0755 "$$bin/scannerd" "$$bin/scanctl" $(DESTDIR)$(BINDIR)/
	$(SUBST) systemd/scannerd.service.in > $(DESTDIR)$(UNITDIR)/scannerd.service
	$(SUBST) systemd/scannerd.socket.in > $(DESTDIR)$(UNITDIR)/scannerd.socket
	sed -f systemd/instance.sed systemd/scannerd.service.in | $(SUBST) > $(DESTDIR)$(UNITDIR)/scannerd@.service
	sed -f systemd/instance.sed systemd/scannerd.socket.in | $(SUBST) > $(DESTDIR)$(UNITDIR)/scannerd@.socket
	chmod 0644 $(DESTDIR)$(UNITDIR)/scannerd.service $(DESTDIR)$(UNITDIR)/scannerd.socket \
		$(DESTDIR)$(UNITDIR)/scannerd@.service $(DESTDIR)$(UNITDIR)/scannerd@.socket
	install -m 0644 systemd/70-scannerd.rules $(DESTDIR)$(UDEVRULESDIR)/70-scannerd.rules
	install -m 0644 systemd/scannerd.sysusers $(DESTDIR)$(SYSUSERSDIR)/scannerd.conf
	@set -e; for f in $(DOCS); do install -m 0644 $$f $(DESTDIR)$(DOCDIR)/$$f; done
# OpenVINO's libraries (the files the binary loads, not the linker's link) and the models: from .build,
# which `make deps` filled.
	install -d $(DESTDIR)$(RUNTIME_INSTALL_DIR) $(DESTDIR)$(MODELS_INSTALL_DIR)
	install -m 0644 $$(find $(OPENVINO_DIR)/lib -maxdepth 1 -type f -name '*.so*') $(DESTDIR)$(RUNTIME_INSTALL_DIR)/
	install -m 0644 $(MODELS_DIR)/alphabet.json $(MODELS_DIR)/text-detector.onnx $(MODELS_DIR)/text-recognizer.onnx $(DESTDIR)$(MODELS_INSTALL_DIR)/
	install -d $(DESTDIR)$(DOCDIR)/openvino
	install -m 0644 $(OPENVINO_DIR)/licenses/LICENSE $(OPENVINO_DIR)/licenses/licensing/*.txt $(DESTDIR)$(DOCDIR)/openvino/
# Never overwrites an operator's configuration: a changed one stays and the shipped defaults go beside it.
# 0644, because the daemon runs as a dynamic user (and the file holds no secrets).
	@if [ -e $(CONF) ] && ! cmp -s config/scannerd.conf $(CONF); then \
		install -m 0644 config/scannerd.conf $(CONF).default; \
		echo "make install: kept $(CONF); the shipped defaults are in $(CONF).default"; \
	else \
		install -m 0644 config/scannerd.conf $(CONF); \
	fi
ifeq ($(DESTDIR),)
	@if [ "$$(id -u)" = 0 ]; then \
		systemd-sysusers $(SYSUSERSDIR)/scannerd.conf || echo "make install: systemd-sysusers failed; create the group: groupadd -r scannerd"; \
		systemctl daemon-reload 2>/dev/null || echo "make install: systemctl daemon-reload failed (is systemd PID 1?); run it once systemd runs"; \
		udevadm control --reload 2>/dev/null || echo "make install: udevadm control --reload failed (is systemd-udevd running?); the rule applies from the next boot"; \
		echo "make install: next: systemctl enable --now scannerd.socket; usermod -aG scannerd USER for each client user"; \
	else \
		echo "make install: not root: run systemd-sysusers, systemctl daemon-reload and udevadm control --reload as root"; \
	fi
endif

# Removes what install put there. The configuration goes only if it is still the shipped default; the
# scannerd group stays (groups are not deleted, files may still carry it).
uninstall:
ifeq ($(DESTDIR),)
	@if [ "$$(id -u)" = 0 ]; then systemctl disable --now scannerd.service scannerd.socket 2>/dev/null || true; fi
endif
	rm -f $(DESTDIR)$(BINDIR)/scannerd $(DESTDIR)$(BINDIR)/scanctl \
		$(DESTDIR)$(UNITDIR)/scannerd.service $(DESTDIR)$(UNITDIR)/scannerd.socket \
		$(DESTDIR)$(UNITDIR)/scannerd@.service $(DESTDIR)$(UNITDIR)/scannerd@.socket \
		$(DESTDIR)$(UDEVRULESDIR)/70-scannerd.rules $(DESTDIR)$(SYSUSERSDIR)/scannerd.conf \
		$(CONF).default
	@set -e; for f in $(DOCS); do rm -f $(DESTDIR)$(DOCDIR)/$$f; done; \
	rm -f $(DESTDIR)$(DOCDIR)/openvino/LICENSE $(DESTDIR)$(DOCDIR)/openvino/*third-party-programs.txt
	rmdir $(DESTDIR)$(DOCDIR)/openvino $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/systemd $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	rm -f $(DESTDIR)$(MODELS_INSTALL_DIR)/alphabet.json $(DESTDIR)$(MODELS_INSTALL_DIR)/text-detector.onnx \
		$(DESTDIR)$(MODELS_INSTALL_DIR)/text-recognizer.onnx
	rm -f $(DESTDIR)$(RUNTIME_INSTALL_DIR)/libopenvino*.so* $(DESTDIR)$(RUNTIME_INSTALL_DIR)/libtbb.so*
	rmdir $(DESTDIR)$(MODELS_INSTALL_DIR) $(DESTDIR)$(PREFIX)/share/scannerd $(DESTDIR)$(RUNTIME_INSTALL_DIR) 2>/dev/null || true
	@if [ -e $(CONF) ] && ! cmp -s config/scannerd.conf $(CONF); then \
		echo "make uninstall: kept $(CONF) (changed from the shipped default)"; \
	else \
		rm -f $(CONF); rmdir $(DESTDIR)$(SYSCONFDIR)/scannerd 2>/dev/null || true; \
	fi
ifeq ($(DESTDIR),)
	@if [ "$$(id -u)" = 0 ]; then \
		systemctl daemon-reload 2>/dev/null || echo "make uninstall: systemctl daemon-reload failed (is systemd PID 1?)"; \
		udevadm control --reload 2>/dev/null || echo "make uninstall: udevadm control --reload failed (is systemd-udevd running?)"; \
	fi
endif
