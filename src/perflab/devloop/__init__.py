"""The developer loop: scripted edits on a working copy of an app, the steps the lab takes after
each save (none, compile, stop/rebuild/restart) and how long until the change shows over HTTP."""
