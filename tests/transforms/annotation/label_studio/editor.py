"""Actions on Label Studio's editor that survive its re-renders: the editor renders again as
the annotation changes, so an element found a moment before may be gone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def retrying(editor, action: Callable[[Any], Any], wait: float) -> Any:
    """``action(driver)`` until it returns a true value, at most ``wait`` seconds, finding
    its elements again after a re-render (``StaleElementReferenceException``)."""
    return WebDriverWait(editor, wait, ignored_exceptions=(StaleElementReferenceException,)
                         ).until(action)


def choose(editor, value: str, wait: float) -> None:
    """Click the label of the choice ``value`` until the choice is selected."""
    def click(driver) -> bool:
        radio = driver.find_element(By.CSS_SELECTOR, f'input[name="{value}"]')
        radio.find_element(By.XPATH, "./ancestor::label").click()
        return driver.find_element(By.CSS_SELECTOR, f'input[name="{value}"]').is_selected()

    retrying(editor, click, wait)
