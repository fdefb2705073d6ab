// placeholder so the library has a source until the transport lands
