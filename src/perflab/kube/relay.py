"""A port on this machine that reaches a pod's port through the API server (a port-forward per
connection): the lab's own requests to an app on a cluster (readiness polls, first responses,
the contract's checks) go to 127.0.0.1 as they do on one machine, with no route into the cluster.

Each accepted connection opens its own port-forward, so a poll that finds nothing listening in the
pod yet fails as a refused connection does locally (the connection closes) and the next poll
tries again. The load never goes this way: it comes from a driver inside the cluster.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading

from kubernetes.stream import portforward

from perflab import signals

CHUNK = 64 * 1024
FORWARD_THREAD = "Kubernetes port forward proxy"  # the client library's own thread per forward


def _quiet_closed_forwards(previous):
    """The client library's forward thread can still be writing when a forward is closed (the poll
    ended, the pod went away) and dies with a socket or websocket error that would print a
    traceback mid-run: such a thread carries nothing the lab reads, so its errors are dropped;
    every other thread's exception goes on to the hook that was there before."""

    def hook(args: threading.ExceptHookArgs) -> None:
        name = args.thread.name if args.thread is not None else ""
        if name.startswith(FORWARD_THREAD) and isinstance(args.exc_value, Exception):
            return
        previous(args)

    return hook


_hook = threading.Lock()
_hooked = False


def _install_hook() -> None:
    global _hooked
    with _hook:
        if not _hooked:
            threading.excepthook, _hooked = _quiet_closed_forwards(threading.excepthook), True


class PortRelay:
    def __init__(self, cluster, namespace: str, pod: str, port: int):
        self.cluster, self.namespace, self.pod, self.port = cluster, namespace, pod, port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)  # the accept loop checks for close() this often
        self.local_port: int = self._listener.getsockname()[1]
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, name=f"relay-{pod}", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.local_port}"

    def start(self) -> "PortRelay":
        _install_hook()
        self._thread.start()
        return self

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self._listener.close()
        self._thread.join(2)

    def _accept(self) -> None:
        signals.keep_off_this_thread()
        while not self._closed.is_set():
            try:
                conn, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:  # closed
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        signals.keep_off_this_thread()
        forward = None
        try:
            with self.cluster.streaming() as core:
                try:
                    forward = portforward(core.connect_get_namespaced_pod_portforward, self.pod, self.namespace,
                                          ports=str(self.port))
                    pump(conn, forward.socket(self.port), self._closed)
                finally:
                    if forward is not None:
                        forward.close()
        except Exception:  # noqa: BLE001 - the pod is not there or not listening: the caller sees a closed connection
            pass
        finally:
            with contextlib.suppress(OSError):
                conn.close()


def pump(a, b, stop: threading.Event) -> None:
    """Bytes both ways between two sockets until either side closes (or `stop` is set)."""
    other = {a.fileno(): b, b.fileno(): a}
    with selectors.DefaultSelector() as sel:
        sel.register(a.fileno(), selectors.EVENT_READ)
        sel.register(b.fileno(), selectors.EVENT_READ)
        while not stop.is_set():
            for key, _ in sel.select(timeout=0.5):
                source = a if key.fd == a.fileno() else b
                data = source.recv(CHUNK)
                if not data:
                    return
                other[key.fd].sendall(data)
