// The concrete socket, strand and timer types of a client connection.
#pragma once

#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <optional>

namespace toolwire::gateway::http {

// Concrete executor types: a type-erased executor costs an allocation-free
// but atomic-heavy copy in every composed operation's step.
//
// A client connection runs on its worker's io_context, which one thread
// runs: its handlers never run concurrently, so it needs no strand (a strand
// costs a lock and a queue hop on every completion).
using Executor = boost::asio::io_context::executor_type;
// What several connections share (a conductor session that a device
// reconnects to from any worker) is serialised on a strand.
using Strand = boost::asio::strand<Executor>;
using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Executor>;
using Timer = boost::asio::basic_waitable_timer<
    std::chrono::steady_clock, boost::asio::wait_traits<std::chrono::steady_clock>, Executor>;

}  // namespace toolwire::gateway::http
