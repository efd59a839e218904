# SPDX-License-Identifier: MIT
"""Builds pctr._pctr against the libpctr that pkg-config finds:
pip install --no-build-isolation . (meson builds it in the source tree)."""
import subprocess

from setuptools import Extension, setup


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "pctr"], check=True,
                             capture_output=True, text=True).stdout
    except FileNotFoundError:
        raise SystemExit("pctr: pkg-config is missing (Debian: pkgconf)")
    except subprocess.CalledProcessError as e:
        raise SystemExit("pctr: pkg-config does not find libpctr (%s); "
                         "install libpctr-dev, or set PKG_CONFIG_PATH to "
                         "DIR/lib/pkgconfig of make install PREFIX=DIR"
                         % e.stderr.strip())
    return out.split()


# a libpctr outside the loader's directories (pkg-config names them with
# -L) is found through an rpath
rpath = [f[2:] for f in pkg_config("--libs-only-L")
         if not f[2:].startswith(("/usr/lib", "/lib", "/usr/local/lib"))]
setup(version=pkg_config("--modversion")[0],
      ext_modules=[Extension("pctr._pctr", ["pctr/_pctr.c"],
                             extra_compile_args=pkg_config("--cflags"),
                             extra_link_args=pkg_config("--libs"),
                             runtime_library_dirs=rpath)])
