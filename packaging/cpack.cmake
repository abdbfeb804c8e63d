# The Debian package (`cpack -G DEB` in the build directory). Included from the top-level
# CMakeLists.txt, right before include(CPack), because CPack reads these in that scope.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tracedesk)
set(CPACK_PACKAGE_VENDOR "TraceDesk")
set(CPACK_PACKAGE_CONTACT "TraceDesk maintainers <maintainers@tracedesk.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Desktop viewer for ML performance profiles (XSpace, Chrome trace JSON, Nsight Systems)")
set(CPACK_PACKAGE_DESCRIPTION
    "TraceDesk opens TensorFlow, JAX and PyTorch/XLA profiles (XSpace .xplane.pb files, run\n\
folders, Chrome trace JSON and Nsight Systems SQLite exports) into an indexed event store and shows a GPU-accelerated\n\
timeline with analysis panels, live capture from a profiler server and trace comparison.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# dpkg-shlibdeps fills Depends from the binaries' shared libraries.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "shared-mime-info, desktop-file-utils, hicolor-icon-theme")
set(CPACK_STRIP_FILES ON)
