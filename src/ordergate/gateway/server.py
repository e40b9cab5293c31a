"""The gateway's server as other packages start it (the command line, the benches): its
configuration, ``run_gateway`` and the ``Serving`` handle it yields, and the owner's tokens
minted as the token endpoint would. A module of its own, not the package's ``__init__``, so
that importing any part of the gateway does not load the whole server.
"""

from ordergate.gateway._config import Custody, GatewayConfig, RateLimits
from ordergate.gateway._minting import mint_owner_tokens
from ordergate.gateway._serve import Serving, run_gateway

__all__ = ["Custody", "GatewayConfig", "RateLimits", "Serving", "mint_owner_tokens", "run_gateway"]
