"""A typed async client of Robinhood's Crypto Trading REST API (the REST rail for crypto).

::

    from ordergate.client.crypto_rest import CryptoRest, default_key_file, read_key_file

    async with CryptoRest(key=read_key_file(default_key_file())) as rest:
        pairs = await rest.trading_pairs("BTC-USD")

Requests are signed with Ed25519 as Robinhood documents (``ApiKey``, ``signed_message``),
held to 100 a minute in bursts of 300 by the client itself (``TokenBucket``), and fail in
``ordergate.client``'s error tree. The key is kept by ``ordergate login --crypto-api``
(``write_key_file``, 0600).
"""

from ordergate.client.crypto_rest._bucket import BURST, PER_MINUTE, TokenBucket
from ordergate.client.crypto_rest._client import DEFAULT_REST_URL, CryptoRest, RateLimitWait
from ordergate.client.crypto_rest._keyfile import (
    CryptoKeyRequired,
    default_key_file,
    read_key_file,
    write_key_file,
)
from ordergate.client.crypto_rest._models import (
    RestAccount,
    RestBestBidAsk,
    RestEstimatedPrice,
    RestExecution,
    RestHolding,
    RestOrder,
    RestPage,
    RestTradingPair,
)
from ordergate.client.crypto_rest._requests import RestOrderRequest
from ordergate.client.crypto_rest._signing import (
    VALID_S,
    ApiKey,
    KeyFormatError,
    public_key_text,
    signature_problem,
    signed_message,
)

__all__ = [
    "BURST",
    "DEFAULT_REST_URL",
    "PER_MINUTE",
    "VALID_S",
    "ApiKey",
    "CryptoKeyRequired",
    "CryptoRest",
    "KeyFormatError",
    "RateLimitWait",
    "RestAccount",
    "RestBestBidAsk",
    "RestEstimatedPrice",
    "RestExecution",
    "RestHolding",
    "RestOrder",
    "RestOrderRequest",
    "RestPage",
    "RestTradingPair",
    "TokenBucket",
    "default_key_file",
    "public_key_text",
    "read_key_file",
    "signature_problem",
    "signed_message",
    "write_key_file",
]
