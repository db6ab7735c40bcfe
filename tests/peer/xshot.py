#!/usr/bin/env python3
# A screenshot of an X display's root window as a PNG, with ctypes and libX11 alone (the test
# machines have no ImageMagick `import` or `xwd`). Used by team-windows.mjs for the evidence of a
# failed check.
#   DISPLAY=:N xshot.py OUT.png
import ctypes
import ctypes.util
import struct
import sys
import zlib

x11 = ctypes.CDLL(ctypes.util.find_library('X11') or 'libX11.so.6')
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
x11.XDefaultRootWindow.restype = ctypes.c_ulong
x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x11.XGetImage.restype = ctypes.c_void_p
x11.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                          ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]


class WindowAttributes(ctypes.Structure):  # the head of XWindowAttributes, then room for the rest
    _fields_ = [('x', ctypes.c_int), ('y', ctypes.c_int), ('width', ctypes.c_int), ('height', ctypes.c_int),
                ('rest', ctypes.c_byte * 256)]


class Image(ctypes.Structure):  # the head of XImage
    _fields_ = [('width', ctypes.c_int), ('height', ctypes.c_int), ('xoffset', ctypes.c_int),
                ('format', ctypes.c_int), ('data', ctypes.POINTER(ctypes.c_ubyte)), ('byte_order', ctypes.c_int),
                ('bitmap_unit', ctypes.c_int), ('bitmap_bit_order', ctypes.c_int), ('bitmap_pad', ctypes.c_int),
                ('depth', ctypes.c_int), ('bytes_per_line', ctypes.c_int), ('bits_per_pixel', ctypes.c_int)]


display = x11.XOpenDisplay(None)
if not display:
    sys.exit('xshot: cannot open the display')
root = x11.XDefaultRootWindow(display)
attributes = WindowAttributes()
x11.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(WindowAttributes)]
x11.XGetWindowAttributes(display, root, ctypes.byref(attributes))
width, height = attributes.width, attributes.height
image = ctypes.cast(x11.XGetImage(display, root, 0, 0, width, height, 0xFFFFFFFF, 2),  # ZPixmap
                    ctypes.POINTER(Image)).contents
if image.bits_per_pixel != 32:
    sys.exit(f'xshot: {image.bits_per_pixel} bits per pixel; only 32 (a 24-bit Xvfb screen) is read')
stride = image.bytes_per_line
raw = ctypes.string_at(image.data, stride * height)
rows = bytearray()
for y in range(height):
    line = raw[y * stride: y * stride + width * 4]  # BGRX
    pixels = bytearray(width * 3)
    pixels[0::3], pixels[1::3], pixels[2::3] = line[2::4], line[1::4], line[0::4]
    rows += b'\0' + pixels


def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)


with open(sys.argv[1], 'wb') as out:
    out.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) +
              chunk(b'IDAT', zlib.compress(bytes(rows), 6)) + chunk(b'IEND', b''))
