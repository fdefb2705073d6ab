int toolwire_server_placeholder() { return 0; }
