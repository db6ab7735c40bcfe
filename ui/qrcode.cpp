#include "qrcode.h"

#include <qrencode.h>

namespace Countersign {

QImage qrCode(const QByteArray &text, int scale)
{
    QRcode *code = QRcode_encodeString(text.constData(), 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!code)
        return {};
    constexpr int kQuiet = 4;
    const int side = (code->width + 2 * kQuiet) * scale;
    QImage image(side, side, QImage::Format_Grayscale8);
    image.fill(255);
    for (int y = 0; y < code->width; ++y) {
        for (int x = 0; x < code->width; ++x) {
            if (!(code->data[y * code->width + x] & 1))
                continue;
            for (int dy = 0; dy < scale; ++dy) {
                uchar *line = image.scanLine((y + kQuiet) * scale + dy);
                std::fill(line + (x + kQuiet) * scale, line + (x + kQuiet + 1) * scale, uchar(0));
            }
        }
    }
    QRcode_free(code);
    return image;
}

} // namespace Countersign
