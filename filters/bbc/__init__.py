"""BBC News pages: URL classes, the article parser of every layout era, page templates.

``urls`` (article, video, live, index pages), ``article`` (body blocks and sub-headings of
Era A-E markup), ``boilerplate`` (call-to-action and footer templates, paragraph
fingerprints). Imports ``filters.text`` only.
"""
