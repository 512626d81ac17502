"""A throwaway Label Studio server for the integration test, and an API client for it.

The server runs from the separate venv (``make label-studio``) on 127.0.0.1 with a fresh data
directory. Authentication is the one Label Studio 1.2x expects (legacy tokens are off): a
user logs in with a session, creates a Personal Access Token (``POST /api/token/``, a JWT
refresh token), and exchanges it at ``/api/token/refresh/`` for short-lived access tokens
sent as ``Authorization: Bearer``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import requests

STARTUP_SECONDS = 420  # Label Studio 1.23 may take 4 minutes to start on a loaded machine
ADMIN_EMAIL = "admin@example.com"
PASSWORD = "Annotate-round-trip-12"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_environment(data_dir: Path) -> dict[str, str]:
    """A clean environment: Label Studio reads many plain names (HOST, PORT, USERNAME...)."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(data_dir),
        "LANG": "C.UTF-8",
        "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
        "LABEL_STUDIO_LATEST_VERSION_CHECK": "false",
        "LABEL_STUDIO_COLLECT_ANALYTICS": "false",
        "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "false",
        "LABEL_STUDIO_LOG_LEVEL": "WARNING",
    }


class Server:
    """``label-studio start`` in its own process group; ``stop`` ends exactly that group."""

    def __init__(self, executable: Path, data_dir: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir / "server.log"
        self._log = open(self.log_path, "wb")  # closed in stop()
        self.process = subprocess.Popen(
            [str(executable), "start", "--no-browser", "--internal-host", "127.0.0.1",
             "--port", str(self.port), "--data-dir", str(data_dir),
             "--username", ADMIN_EMAIL, "--password", PASSWORD],
            env=server_environment(data_dir), stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)

    def wait_until_up(self, seconds: float = STARTUP_SECONDS) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"label-studio exited with {self.process.returncode}:\n"
                                   + self.log_tail())
            try:
                if requests.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"label-studio was not up after {seconds} s:\n" + self.log_tail())

    def log_tail(self, lines: int = 30) -> str:
        self._log.flush()
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
        self._log.close()


class Client:
    """One Label Studio user talking to the API with a Personal Access Token."""

    def __init__(self, url: str, email: str, password: str, sign_up: bool = False):
        self.url = url
        browser = requests.Session()
        page = "/user/signup/" if sign_up else "/user/login/"
        browser.get(url + page, timeout=30).raise_for_status()
        response = browser.post(
            url + page, allow_redirects=False, timeout=30,
            data={"email": email, "password": password,
                  "csrfmiddlewaretoken": browser.cookies["csrftoken"]},
            headers={"Referer": url + page})
        if response.status_code != 302:
            raise RuntimeError(f"{page} failed ({response.status_code}) for {email}")
        created = browser.post(url + "/api/token/", json={}, timeout=30,
                               headers={"X-CSRFToken": browser.cookies["csrftoken"],
                                        "Referer": url + "/"})
        created.raise_for_status()
        self.personal_access_token = created.json()["token"]
        self.session = requests.Session()
        self.refresh()
        self.user_id = self.get("/api/current-user/whoami")["id"]

    def refresh(self) -> None:
        """A fresh access token from the Personal Access Token (``/api/token/refresh/``)."""
        response = requests.post(self.url + "/api/token/refresh/", timeout=30,
                                 json={"refresh": self.personal_access_token})
        response.raise_for_status()
        self.session.headers["Authorization"] = "Bearer " + response.json()["access"]

    def _check(self, response: requests.Response) -> Any:
        if response.status_code >= 400:
            raise RuntimeError(f"{response.request.method} {response.url}: "
                               f"{response.status_code} {response.text[:1000]}")
        return response.json() if response.content else None

    def get(self, path: str, **params: Any) -> Any:
        return self._check(self.session.get(self.url + path, params=params, timeout=60))

    def post(self, path: str, body: Any, **params: Any) -> Any:
        return self._check(self.session.post(self.url + path, json=body, params=params,
                                             timeout=60))


def sign_in(chrome: Any, url: str, wait: float) -> Any:
    """Chromium signed in as the admin through the login form; a browser that is signed in
    already (the session's Chromium is shared by the test files) is sent on by Label Studio,
    and left as it is."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chrome.get(url + "/user/login/")
    WebDriverWait(chrome, wait).until(lambda d: d.find_elements(By.NAME, "email")
                                      or "/user/login" not in d.current_url)
    if "/user/login" in chrome.current_url:
        chrome.find_element(By.NAME, "email").send_keys(ADMIN_EMAIL)
        chrome.find_element(By.NAME, "password").send_keys(PASSWORD)
        chrome.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(chrome, wait).until(lambda d: "/user/login" not in d.current_url)
    return chrome
