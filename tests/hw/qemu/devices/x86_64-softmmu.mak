# The x86-64 guest's machine (-machine q35), and no other board or device.
CONFIG_Q35=y
# q35 makes a parallel port unless told "-parallel none"
CONFIG_PARALLEL=y
