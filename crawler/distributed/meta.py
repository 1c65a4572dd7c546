"""Request meta keys of the shared frontier, apart from the queue so that the spider reads
them without importing scrapy-redis."""

#: Request meta: the lease a request was taken under (a plain string, so meta pickles).
LEASE_META_KEY = "pagesight_lease"
#: Request meta: True on a request put back after its lease expired.
RECRAWLED_META_KEY = "pagesight_recrawled"
