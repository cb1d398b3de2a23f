"""The package's build backend: setuptools', run on a copy of this folder in a temporary
directory.

pip builds a wheel inside the folder it is given, and setuptools writes build/ and
*.egg-info there: from a read-only folder (a .deb's /usr/share/retryproof/embed/python, a
checkout mounted read-only) that fails with "could not create 'build': Permission denied".
On a copy, the folder pip was given is only read. An editable install (pip install -e) needs
the folder itself, so that one is setuptools' own.
"""

import os
import shutil
import tempfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 (hooks pip calls, setuptools' as they are)
    build_editable,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
)

_HERE = os.path.dirname(os.path.abspath(__file__))


def _on_a_copy(hook, output_directory, *args, **kwargs):
    """Runs setuptools' `hook` in a fresh copy of this folder; its output goes where pip asked."""
    output_directory = os.path.abspath(output_directory)
    with tempfile.TemporaryDirectory(prefix="retryproof-sandbox-build-") as scratch:
        copy = os.path.join(scratch, "package")
        os.mkdir(copy)
        # The package is one flat folder of files. Their contents only: a copy with their
        # modes (copytree's) would be as read-only as they are.
        for name in os.listdir(_HERE):
            if os.path.isfile(os.path.join(_HERE, name)):
                shutil.copyfile(os.path.join(_HERE, name), os.path.join(copy, name))
        previous = os.getcwd()
        os.chdir(copy)  # setuptools reads pyproject.toml, and writes build/, where it runs
        try:
            return hook(output_directory, *args, **kwargs)
        finally:
            os.chdir(previous)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _on_a_copy(_setuptools.prepare_metadata_for_build_wheel, metadata_directory,
                      config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _on_a_copy(_setuptools.build_wheel, wheel_directory, config_settings,
                      metadata_directory and os.path.abspath(metadata_directory))


def build_sdist(sdist_directory, config_settings=None):
    def with_this_backend(*args):
        # setuptools takes the modules the package installs; an sdist must also carry the
        # backend its pyproject.toml names. The manifest is the copy's, never this folder's.
        with open("MANIFEST.in", "w") as manifest:
            manifest.write("include " + os.path.basename(__file__) + "\n")
        return _setuptools.build_sdist(*args)
    return _on_a_copy(with_this_backend, sdist_directory, config_settings)
