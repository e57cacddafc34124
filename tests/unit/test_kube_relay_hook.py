"""A closed port-forward's library thread dies quietly; every other thread's error is still reported."""

import threading

from perflab.kube import relay


def _run_thread(name: str, exc: BaseException, hook) -> None:
    def boom():
        raise exc

    saved = threading.excepthook
    threading.excepthook = hook
    try:
        t = threading.Thread(target=boom, name=name)
        t.start()
        t.join()
    finally:
        threading.excepthook = saved


def test_only_the_forward_threads_errors_are_dropped():
    seen = []
    hook = relay._quiet_closed_forwards(lambda args: seen.append((args.thread.name, type(args.exc_value))))
    _run_thread(f"{relay.FORWARD_THREAD}: 8080", OSError("EOF occurred in violation of protocol"), hook)
    assert seen == []
    _run_thread("relay-app-i1", OSError("broken pipe"), hook)
    _run_thread(f"{relay.FORWARD_THREAD}: 8080", KeyboardInterrupt(), hook)
    assert seen == [("relay-app-i1", OSError), (f"{relay.FORWARD_THREAD}: 8080", KeyboardInterrupt)]
