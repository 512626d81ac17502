"""Hand-written news pages of a site that is not the BBC, for the generic layout's tests.

``ARTICLE`` has two real interrogative sub-headings with answer paragraphs, a statement
sub-heading, and every kind of question-shaped furniture the issue names: a newsletter
prompt, a related-articles block, an FAQ widget, an ad and a comment prompt.
"""

from __future__ import annotations

ARTICLE_URL = "https://news.example.org/2021/03/04/river-flood-defences"
REAL_QUESTIONS = {
    "Why does it matter?": "The river has flooded the town centre four times",
    "What happens next?": "Engineers will start work on the new walls in May",
}
FURNITURE = {  # question -> the reason it is dropped with
    "What is your email?": "newsletter_prompt",
    "Why are house prices rising in the valley?": "related_link",
    "Is the flood map free to use?": "faq_widget",
    "Want a cheaper mortgage?": "advertisement",
    "What do you think?": "comment_prompt",
}

_LOREM = ("Residents, shop owners and the council have argued about the scheme for years, and "
          "the consultation drew more than two thousand written responses from the valley.")

ARTICLE = f"""<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Flood defences approved for the river town | Example News</title>
<link rel="canonical" href="{ARTICLE_URL}">
<meta property="og:title" content="Flood defences approved for the river town">
<meta property="article:published_time" content="2021-03-04T08:15:00+00:00">
</head><body>
<nav class="site-nav"><a href="/">Home</a> <a href="/world">World</a></nav>
<main><article class="story">
<h1>Flood defences approved for the river town</h1>
<p>A new set of flood walls has been approved for the town after a decade of debate, the
council said on Thursday, ending a long argument over the cost of protecting the old centre
from the river.</p>
<p>{_LOREM}</p>
<h2>Why does it matter?</h2>
<p>The river has flooded the town centre four times since 2007, closing shops for weeks and
forcing hundreds of families out of their homes while the water receded.</p>
<p>Insurers have warned that cover will become unaffordable without new defences. {_LOREM}</p>
<div class="newsletter-signup"><h3>What is your email?</h3>
<p>Get the morning briefing in your inbox.</p></div>
<h2>Background</h2>
<p>The first plans were drawn up in 2011 but were shelved after the costs doubled, and a
smaller scheme was rejected by the planning inspector three years later. {_LOREM}</p>
<h2>What happens next?</h2>
<p>Engineers will start work on the new walls in May, beginning with the stretch beside the
market square, and the council expects the work to take two years to finish.</p>
<p>Roads near the river will close in turn while the foundations are dug. {_LOREM}</p>
<div class="ad-slot"><h3>Want a cheaper mortgage?</h3><p>Compare rates today.</p></div>
<section class="faq"><h3>Is the flood map free to use?</h3><p>Yes, it is free.</p></section>
<h2>What do you think?</h2>
<p>Tell us in the comments below.</p>
</article>
<aside class="related-stories"><h3><a href="/2021/02/prices">Why are house prices rising in
the valley?</a></h3><ul><li><a href="/a">Council tax to rise</a></li>
<li><a href="/b">Bridge reopens</a></li></ul></aside>
</main>
<footer><p>Copyright Example News</p></footer>
</body></html>
"""

NO_BODY_URL = "https://news.example.org/section/weather"
NO_BODY = f"""<html><head><link rel="canonical" href="{NO_BODY_URL}"></head>
<body><nav><a href="/">Home</a> <a href="/weather">Weather</a></nav></body></html>
"""
