# SPDX-License-Identifier: Apache-2.0
"""Builds bloomkit._bloomkit with the project's CMake (the same target as
-DBLOOMKIT_PYTHON=ON) for `pip install ./python`. Metadata is in pyproject.toml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the bloomkit repository: CMakeLists.txt, include/, src/core/


class CMakeBuild(build_ext):
    """Configures the repository with only the core and the Python module, builds the
    module target and copies it where setuptools packs it."""

    def build_extension(self, ext: Extension) -> None:
        if not (ROOT / "CMakeLists.txt").exists():
            raise RuntimeError(f"{ROOT}: not a bloomkit source tree (python/ must stay inside it)")
        build_dir = Path(self.build_temp).resolve() / "cmake"
        build_type = os.environ.get("BLOOMKIT_BUILD_TYPE", "Release")
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            f"-DCMAKE_BUILD_TYPE={build_type}",
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DBLOOMKIT_PYTHON=ON",
            "-DBLOOMKIT_BUILD_TESTS=OFF", "-DBLOOMKIT_BUILD_BENCHMARKS=OFF", "-DBLOOMKIT_BUILD_CLI=OFF",
            "-DBLOOMKIT_BUILD_REDIS_MODULE=OFF", "-DBLOOMKIT_BUILD_EXAMPLES=OFF", "-DBLOOMKIT_INSTALL=OFF",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "bloomkit_python", "-j", jobs], check=True)
        built = sorted((build_dir / "python" / "bloomkit").glob("_bloomkit*.so"))
        if not built:
            raise RuntimeError(f"the CMake build produced no _bloomkit module in {build_dir}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("bloomkit._bloomkit", sources=[])], cmdclass={"build_ext": CMakeBuild})
