"""Labels of the 16 news pages in ../shared/data/news (postlight/parser fixtures).

How they were made: by reading each page. Every ``<h1>``-``<h3>`` ending in "?" was listed
with the elements around it (``tests/realdata/test_news_realdata.py`` lists them again and
fails on one these labels do not name), then each was read in place: a heading inside the
article's own text with the article's paragraphs under it answering it is a *real*
interrogative sub-heading (its answer's first words are recorded); anything else is
boilerplate, labelled with what it is. ``body`` is a phrase of the article's own text, read
on the page, to tell whether an extractor found the body.

``split``: rules were developed on the ``dev`` pages (and the examples the issue names);
the ``unseen`` publishers were kept for reporting (docs/design/news-extractor.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEV, UNSEEN = "dev", "unseen"


@dataclass(frozen=True)
class PageLabel:
    """What a reader found on one page."""

    split: str
    body: str
    real: dict[str, str] = field(default_factory=dict)  # question -> first words of answer
    boilerplate: dict[str, str] = field(default_factory=dict)  # question -> what it is


NEWS_LABELS: dict[str, PageLabel] = {
    "arstechnica.com.html": PageLabel(
        UNSEEN, "Name a home appliance or product, and there's probably a smart version",
        real={"What protocols should/can you use?":
              "When picking out accessories, for convenience's sake",
              "Which products are off-limits?":
              "As a general rule of thumb, smart thermostats are typically off-limits"}),
    "genius.com.html": PageLabel(
        UNSEEN, "I never meant to cause you any sorrow",
        boilerplate={"What have the artists said about the song?": "FAQ widget (Q&A list)",
                     "Did this track receive any accolades?": "FAQ widget (Q&A list)"}),
    "ma.ttias.be.html": PageLabel(
        DEV, "There's quite a bit of news from Github this week",
        real={"Why does cron only offer minute granularity?": "In short, compatibility."},
        boilerplate={"Want to subscribe to the cron.weekly newsletter?": "newsletter prompt",
                     "Who dis? 🤔": "author box"}),
    "nymag.com.html": PageLabel(
        UNSEEN, "It took 15 days to end the mighty 20-year reign of Roger Ailes at Fox News",
        boilerplate={"What is your email?": "newsletter prompt (5 copies, in <template>)"}),
    "observer.com.html": PageLabel(
        DEV, "A few weeks ago, Egyptian archaeologists excavated parts of Abydos",
        boilerplate={"How Do I Whitelist Observer?": "ad-blocker notice"}),
    "www.cbssports.com.html": PageLabel(
        DEV, "Once the World Series ends, we know we're going to be treated to several things",
        boilerplate={"Where do things stand in MVP races?": "related-article teaser"}),
    "www.fool.com.html": PageLabel(
        UNSEEN, "The idea that video games are on track to be the next big spectator sport",
        real={"What does the future of eSports look like?":
              "Estimations for the value trajectory of the eSports market"}),
    "www.huffingtonpost.com.html": PageLabel(
        DEV, "At numerous points during the presidential campaign, Donald Trump described",
        boilerplate={"Trump Has Shown Receptiveness To Obama's Agenda. Does He Actually Mean "
                     "It?": "the headline (h1)",
                     "The $1 million question: Can you change the president-elect's worldview "
                     "or is this all for show?": "the standfirst under the headline"}),
    "www.investmentexecutive.com.html": PageLabel(
        DEV, "The International Monetary Fund is downgrading its outlook for the world economy",
        boilerplate={"How can modern rebalancing improve your business?": "sponsored teaser"}),
    "www.latimes.com.html": PageLabel(
        UNSEEN, "An internal report on last year's unprecedented one-day shutdown of Los Angeles",
        boilerplate={"Why did Anne Heche buy a 'random' red wig in this Venice hair salon "
                     "before her crash?": "related-article promo"}),
    "www.nationalgeographic.com.html": PageLabel(
        DEV, "For adults, play is a break from life",
        boilerplate={"What do we owe horseshoe crabs?": "related-article teaser",
                     "Why are people so dang obsessed with Mars?": "related-article tile (3)"}),
    "www.nbcnews.com.html": PageLabel(
        UNSEEN, "2016 probably wasn't the most enjoyable year for billionaire Elon Musk",
        boilerplate={"What's the Hold-Up at SpaceX?": "the headline (h1)",
                     "SpaceX rocket explosion: What caused launch pad failure?":
                     "embedded video title"}),
    "www.nytimes.com--feature.html": PageLabel(
        DEV, "National Museum of African American History and Culture opens on Sept. 24",
        boilerplate={"How Do You Tell the Story of Black America in One Museum?":
                     "related-article link"}),
    "www.rawstory.com.html": PageLabel(
        UNSEEN, "reportedly having such a hard time attracting celebrity",
        boilerplate={"Who would you vote for in 2024 - Biden or DeSantis?": "poll widget",
                     "Journalist: Is Mark Milley coming clean — or just trying to rehabilitate "
                     "his image after Trump administration?": "related-article link"}),
    "www.vox.com.html": PageLabel(
        DEV, "After the election, Twitter issued a statement to Slate",
        boilerplate={"Inflation is finally slowing down. Will things get cheaper?":
                     "related-article river",
                     "It's Bama Rush season already?": "related-article river"}),
    "www.yahoo.com.html": PageLabel(
        UNSEEN, "The Hillary Clinton campaign has canceled joint appearances",
        boilerplate={"Who Is Kim Kardashian's Bodyguard Pascal Duvier and Where Was He at "
                     "Time of Paris Robbery?": "related-article link",
                     "Here's the best way to answer when an interviewer asks, 'Can you tell "
                     "me about yourself?'": "related-article link"}),
}


def normalized(text: str) -> str:
    """Whitespace collapsed, curly quotes straight: how labels are compared with text."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    return " ".join(text.replace("\u201d", '"').split())
