// data_url.h — images as `data:<media type>;base64,<data>` URLs, the form the
// OpenAI dialects send them in and the others take apart.
#pragma once

#include <string>
#include <string_view>

#include "dialects/common/borrowed_ir.h"

namespace toolwire::dialects {

// "data:<media>;base64,<data>" → media, data; false for any other URL (a
// data: URL without ;base64 included).
bool split_data_url(std::string_view url, std::string_view& media, std::string_view& data);

// "data:<media>;base64,<data>".
std::string make_data_url(std::string_view media, std::string_view data);

// An OpenAI image URL value: a base64 data: URL becomes media_type + data;
// any other URL (another data: URL included) stays a URL.
template <class S = ir::Owning>
ir::BasicImagePart<S> image_from_url(std::string_view url, std::string_view detail) {
  ir::BasicImagePart<S> img;
  img.detail = IrText<S>::keep(detail);
  std::string_view media, data;
  if (split_data_url(url, media, data)) {
    img.media_type = IrText<S>::keep(media);
    img.data = IrText<S>::keep(data);
  } else {
    img.url = IrText<S>::keep(url);
  }
  return img;
}

}  // namespace toolwire::dialects
