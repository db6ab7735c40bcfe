#include "devicekey.h"

#include "opensslptr.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#include <memory>

namespace Countersign::DeviceKey {

namespace {

using namespace OpenSslPtr;

// The key, checked to be a point on P-256.
Pkey publicKeyOf(const QByteArray &point)
{
    if (point.size() != 65 || point.at(0) != '\x04')
        return {};
    char group[] = "prime256v1";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
                           OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY,
                                                             const_cast<char *>(point.constData()),
                                                             size_t(point.size())),
                           OSSL_PARAM_construct_end()};
    PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    EVP_PKEY *raw = nullptr;
    if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
        EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params) != 1)
        return {};
    Pkey key(raw);
    PkeyCtx check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
    if (!check || EVP_PKEY_public_check(check.get()) != 1)
        return {};
    return key;
}

// r || s as the DER SEQUENCE OpenSSL verifies.
QByteArray derOf(const QByteArray &p1363)
{
    if (p1363.size() != 64)
        return {};
    Sig sig(ECDSA_SIG_new());
    BIGNUM *r = BN_bin2bn(reinterpret_cast<const unsigned char *>(p1363.constData()), 32, nullptr);
    BIGNUM *s = BN_bin2bn(reinterpret_cast<const unsigned char *>(p1363.constData()) + 32, 32, nullptr);
    if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
        BN_free(r);
        BN_free(s);
        return {};
    }
    const int length = i2d_ECDSA_SIG(sig.get(), nullptr);
    if (length <= 0)
        return {};
    QByteArray der(length, '\0');
    auto *out = reinterpret_cast<unsigned char *>(der.data());
    if (i2d_ECDSA_SIG(sig.get(), &out) != length)
        return {};
    return der;
}

} // namespace

bool verify(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature)
{
    const Pkey key = publicKeyOf(publicKey);
    const QByteArray der = derOf(signature);
    if (!key || der.isEmpty())
        return false;
    MdCtx md(EVP_MD_CTX_new());
    return md && EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
           EVP_DigestVerify(md.get(), reinterpret_cast<const unsigned char *>(der.constData()),
                            size_t(der.size()), reinterpret_cast<const unsigned char *>(message.constData()),
                            size_t(message.size())) == 1;
}

} // namespace Countersign::DeviceKey
