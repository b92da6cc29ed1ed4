"""The shared cache on Redis, degrading while Redis is away instead of failing the request.

django-redis with IGNORE_EXCEPTIONS makes a read miss and a write a no-op when Redis does not
answer. Its add() then answers None, which callers read as "the key exists": allauth takes
add() as the lock of its rate limits (every login would be refused, 429) and as the mark of a
used TOTP code (every code would be refused). Here add() answers True instead, as a cache that
had just lost the key would: during an outage those guards let the request through, and
django-axes (in the database) still locks out repeated failed logins.
"""

from django_redis.cache import RedisCache, omit_exception


class SharedCache(RedisCache):
    @omit_exception(return_value=True)
    def add(self, *args, **kwargs) -> bool:
        return self.client.add(*args, **kwargs)
