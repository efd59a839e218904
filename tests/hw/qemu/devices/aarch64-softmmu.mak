# The arm64 guest's machine (-machine virt), and no other board or device.
CONFIG_ARM_VIRT=y
# QEMU 7.2's target/arm links M-profile and semihosting code whatever the
# boards: without these, qemu-system-aarch64 does not link
CONFIG_ARM_V7M=y
CONFIG_SEMIHOSTING=y
CONFIG_ARM_COMPATIBLE_SEMIHOSTING=y
