#pragma once

#include <QByteArray>
#include <QImage>

namespace Countersign {

// text as a QR code (libqrencode, error correction M), each module scale pixels, with the four
// modules of quiet zone a camera needs; a null image when the text does not fit one.
QImage qrCode(const QByteArray &text, int scale = 6);

} // namespace Countersign
