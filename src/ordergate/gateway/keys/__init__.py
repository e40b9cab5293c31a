"""Per-connection keys for sealed custody (envelope encryption under a key provider).

Each sealed connection's upstream session is encrypted under a data key of its own
(``_envelope``), stored only wrapped by a key-encryption key held by a key provider
(``_provider``): the master secret's (the default) or a PKCS#11 token's.
"""

from ordergate.gateway.keys._envelope import (
    ENVELOPE_PREFIX,
    Envelope,
    open_envelope,
    rewrapped,
    seal_envelope,
    unwrapped_data_key,
)
from ordergate.gateway.keys._provider import (
    ENV_KEY_PROVIDER,
    ENV_MASTER_SECRET_PREVIOUS,
    ENV_PKCS11_MODULE,
    ENV_PKCS11_PIN,
    ENV_PKCS11_PIN_FILE,
    ENV_PKCS11_TOKEN,
    KEK_LABEL_PREFIX,
    KeyProvider,
    KeyProviderError,
    MasterSecretProvider,
    Pkcs11Provider,
    provider_from_env,
    read_pin_file,
)

__all__ = [
    "ENVELOPE_PREFIX",
    "ENV_KEY_PROVIDER",
    "ENV_MASTER_SECRET_PREVIOUS",
    "ENV_PKCS11_MODULE",
    "ENV_PKCS11_PIN",
    "ENV_PKCS11_PIN_FILE",
    "ENV_PKCS11_TOKEN",
    "KEK_LABEL_PREFIX",
    "Envelope",
    "KeyProvider",
    "KeyProviderError",
    "MasterSecretProvider",
    "Pkcs11Provider",
    "open_envelope",
    "provider_from_env",
    "read_pin_file",
    "rewrapped",
    "seal_envelope",
    "unwrapped_data_key",
]
