// Where an asio call runs (Serial: its executor and io_context) and what it
// connects to (Upstream: the URL's parts and its connection pool's key).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"
#include "transport/asio/url.h"

namespace toolwire::transport::asio_detail {

using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
using PlainExecutor = boost::asio::io_context::executor_type;

// Where a call's handlers run, one at a time, and the io_context under it.
struct Serial {
  boost::asio::any_io_executor ex;
  boost::asio::io_context* ctx;
};

// The caller's strand (a strand of any io_context: the gateway's workers
// each run their own); or, when it gave the plain executor of an io_context
// (a gateway worker's: the call then runs on that worker's thread, its
// upstream connection from that worker's pool), that executor itself where
// one thread runs every io_context (one_thread_contexts), else a new strand
// on it; with neither, the client's io_context (`ioc`), the same way.
Serial serial_for(boost::asio::io_context& ioc, const boost::asio::any_io_executor& ex,
                  bool one_thread);

// A call's upstream: its URL's parts and the key of its idle connections on
// the call's io_context (idle connections are kept per io_context: a call
// takes only those of the thread it runs on).
struct Upstream {
  ParsedUrl url;
  std::string pool_key;  // url.pool_key on that io_context
};

// The Upstream of `url` on `ctx`, shared by the calls of this thread to the
// same URL: a gateway sends every request of a route to one URL, and parsing
// it again, with the strings that builds, cost about 2 k instructions per call.
Result<std::shared_ptr<const Upstream>> upstream_for(std::string_view url,
                                                     const boost::asio::io_context& ctx);

}  // namespace toolwire::transport::asio_detail
