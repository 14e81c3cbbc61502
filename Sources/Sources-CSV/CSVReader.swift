internal import CCSV
