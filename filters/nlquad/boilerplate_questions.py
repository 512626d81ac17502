"""Question-shaped page furniture that must never become an NLQuAD question.

NLQuAD (Soleimani, Monz, Worring, EACL 2021, §3) takes an article's interrogative
sub-headings as questions and removes the page "template" first. On news sites other than
the BBC the template ends in "?" too: newsletter prompts ("What is your email?", "Want to
subscribe to the newsletter?"), comment and poll prompts ("What do you think?"), ad-blocker
notices ("How do I whitelist Observer?"), related-article teasers and FAQ widgets. Two pure
rules say which, each returning a ``Verdict`` (keep, or drop with a named reason):

* ``question_text_verdict``: the words of the question itself (newsletter, comment and
  advertisement prompts);
* ``heading_context_verdict``: where the heading sits in the page: the class and id words of
  its enclosing elements (a ``newsletter`` box, a ``related`` or ``promo`` river, a ``faq``
  list, an ``ad`` or ``sponsor`` slot, a ``comments`` block), and whether the heading is
  nothing but a link (a teaser pointing to another article).

Both are deliberately narrow: a real sub-heading such as "Should you subscribe to a
streaming service?" is not a newsletter prompt (measured on ../shared/data/news, see
docs/design/news-extractor.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

NEWSLETTER_PROMPT = "newsletter_prompt"
COMMENT_PROMPT = "comment_prompt"
ADVERTISEMENT = "advertisement"
RELATED_LINK = "related_link"
FAQ_WIDGET = "faq_widget"
#: every reason these rules give, in the order they are tried
REASONS = (NEWSLETTER_PROMPT, COMMENT_PROMPT, ADVERTISEMENT, RELATED_LINK, FAQ_WIDGET)


@dataclass(frozen=True)
class Verdict:
    """Keep the question (``reason`` empty) or drop it for ``reason``."""

    reason: str = ""

    @property
    def keep(self) -> bool:
        return not self.reason


KEEP = Verdict()

_TEXT_RULES = (
    (NEWSLETTER_PROMPT, re.compile(
        r"\byour e-?mail\b|\be-?mail address\b|\bnewsletters?\b|\bsubscribe (to|for) (our|the|"
        r"this|my)\b|\bsign (me )?up (for|to)\b|\bin your inbox\b|\bwant to subscribe\b", re.I)),
    (COMMENT_PROMPT, re.compile(
        r"\b(leave|post|add|write) a comment\b|\bjoin the (conversation|discussion|debate)\b|"
        r"\bwhat do you think\b|\bwhat are your thoughts\b|\bhave your say\b", re.I)),
    (ADVERTISEMENT, re.compile(
        r"\bad ?-?blocker\b|\bwhitelist\b|\ballowlist\b|\bdisable (your )?ad|"
        r"\bsponsored\b", re.I)),
)

# class / id words of an enclosing element, lower-cased, split at non-letters and camelCase
_CONTEXT_WORDS = (
    (NEWSLETTER_PROMPT, {"newsletter", "newsletters", "subscribe", "subscription", "signup",
                         "optin"}),
    (COMMENT_PROMPT, {"comment", "comments", "poll", "polls", "survey", "disqus"}),
    (ADVERTISEMENT, {"ad", "ads", "adb", "adblock", "advert", "advertisement", "advertising",
                     "sponsor", "sponsored", "dfp", "outbrain", "taboola"}),
    (RELATED_LINK, {"related", "promo", "promos", "recommended", "recommendations", "river",
                    "teaser", "teasers", "tile", "tiles", "newsfeed", "trending", "popular",
                    "readmore"}),
    (FAQ_WIDGET, {"faq", "faqs", "accordion"}),
)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def question_text_verdict(question: str) -> Verdict:
    """Drop a question whose words make it a newsletter, comment/poll or advertisement
    prompt; keep any other."""
    text = question.replace("\u2019", "'")
    for reason, pattern in _TEXT_RULES:
        if pattern.search(text):
            return Verdict(reason)
    return KEEP


def context_words(attribute_values: Iterable[str]) -> set[str]:
    """The words of class and id values: ``"NewsFeed-content promo_box"`` gives
    ``{"news", "feed", "newsfeed", "content", "promo", "box"}`` (camelCase parts and the
    whole camelCase word both)."""
    words: set[str] = set()
    for value in attribute_values:
        for token in re.split(r"[\s_\-]+", value or ""):
            if not token:
                continue
            words.update(w for w in _NON_WORD.split(token.lower()) if w)
            words.update(w for w in _NON_WORD.split(_CAMEL.sub(" ", token).lower()) if w)
    return words


def heading_context_verdict(attribute_values: Iterable[str], link_only: bool = False
                            ) -> Verdict:
    """Drop a question heading that sits in page furniture: ``attribute_values`` are the
    class and id values of the heading and its enclosing elements (the nearest few), and
    ``link_only`` says the heading's text is all link text (a teaser for another article)."""
    words = context_words(attribute_values)
    for reason, markers in _CONTEXT_WORDS:
        if words & markers:
            return Verdict(reason)
    if link_only:
        return Verdict(RELATED_LINK)
    return KEEP
