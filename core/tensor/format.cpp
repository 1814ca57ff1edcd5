#include "format.h"

#include <array>

namespace ds {

namespace {
constexpr std::array<const char *, 50> kNames = {
    "NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "NC1C0HWPAD", "NHWC1C0", "FSR_NCHW",
    "FRACTAL_DECONV", "C1HWNC0", "FRACTAL_DECONV_TRANSPOSE", "FRACTAL_DECONV_SP_STRIDE_TRANS",
    "NC1HWC0_C04", "FRACTAL_Z_C04", "CHWN", "FRACTAL_DECONV_SP_STRIDE8_TRANS", "HWCN",
    "NC1KHKWHWC0", "BN_WEIGHT", "FILTER_HWCK", "HASHTABLE_LOOKUP_LOOKUPS",
    "HASHTABLE_LOOKUP_KEYS", "HASHTABLE_LOOKUP_VALUE", "HASHTABLE_LOOKUP_OUTPUT",
    "HASHTABLE_LOOKUP_HITS", "C1HWNCoC0", "MD", "NDHWC", "FRACTAL_ZZ", "FRACTAL_NZ", "NCDHW",
    "DHWCN", "NDC1HWC0", "FRACTAL_Z_3D", "CN", "NC", "DHWNC", "FRACTAL_Z_3D_TRANSPOSE",
    "FRACTAL_ZN_LSTM", "FRACTAL_Z_G", "RESERVED", "ALL", "NULL", "ND_RNN_BIAS",
    "FRACTAL_ZN_RNN", "YUV", "YUV_A", "NCL", "FRACTAL_Z_WINO", "C1HWC0",
};
} // namespace

QString formatName(int raw)
{
    const int p = primaryFormat(raw), sub = packedSubFormat(raw);
    QString name;
    if (p >= 0 && p < int(kNames.size()))
        name = QString::fromLatin1(kNames[size_t(p)]);
    else if (p == 255)
        name = QStringLiteral("FORMAT_MAX");
    else
        name = QStringLiteral("UNKNOWN(%1)").arg(p);
    if (sub != 0)
        name += QStringLiteral(":%1").arg(sub);
    return name;
}

bool isConvertibleFormat(int raw)
{
    switch (static_cast<Format>(primaryFormat(raw))) {
    case Format::NC1HWC0: case Format::NC1HWC0_C04: case Format::NDC1HWC0: case Format::FRACTAL_Z:
    case Format::FRACTAL_Z_3D: case Format::FRACTAL_NZ: case Format::C1HWNCoC0:
        return true;
    default: return false;
    }
}

bool isPrivateFormat(int raw)
{
    switch (static_cast<Format>(primaryFormat(raw))) {
    case Format::NCHW: case Format::NHWC: case Format::ND: case Format::HWCN: case Format::NDHWC:
    case Format::NCDHW: case Format::DHWCN:
        return false;
    default: {
        const int p = primaryFormat(raw);
        return !(p == 34 || p == 35 || p == 36 || p == 47); // CN, NC, DHWNC, NCL are plain
    }
    }
}

} // namespace ds
