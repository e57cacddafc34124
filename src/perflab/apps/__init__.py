"""The apps under apps/: their descriptors, their builds and launching them.

- `descriptors`: reading and checking apps/<name>/perflab.toml (or one in a user's own folder),
  finding the apps, whether a mode can run here
- `building`: builds cached by a hash of the app's sources
- `versions`: an app built against another version of its framework (app@version)
- `version_builds`: whether such a version builds here, and if not the build's own reason
- `launching`: starting an app in one of its modes, waiting until it is ready, stopping it
"""

from .building import BuildResult, build, build_env, last_build
from .descriptors import (CONTRACT_API, OWN_API, App, Database, Mode, Smoke, discover, get, load_descriptor, load_dir,
                          native_image, native_image_missing, unavailable, with_dirs)
from .launching import Running, http_status, launch, launch_argv, mode_jvm_opts, wait_ready

__all__ = [
    "App", "BuildResult", "CONTRACT_API", "Database", "Mode", "OWN_API", "Running", "Smoke", "build", "build_env",
    "discover", "get", "http_status", "last_build", "launch", "launch_argv", "load_descriptor", "load_dir",
    "mode_jvm_opts", "native_image", "native_image_missing", "unavailable", "wait_ready", "with_dirs",
]
